/**
 * Counts and times every relayed request, from the routes and from workflow
 * tasks alike. The `adapter` label is the adapter's configured name, or
 * `other` for a name the configuration does not hold: callers choose the
 * adapter id, and a label must not grow with what callers send.
 */
import type { Relay } from '../relay/relay.ts';
import { secondsSince } from '../../../kernel/index.ts';

export type ObserveRelay = (adapter: string, outcome: 'ok' | 'error', seconds: number) => void;

export function observedRelay(relay: Relay, configured: readonly string[], observe: ObserveRelay): Relay {
  const known = new Set(configured);
  const timed = <T>(adapterId: string, run: () => Promise<T>): Promise<T> => {
    const started = process.hrtime.bigint();
    const adapter = known.has(adapterId) ? adapterId : 'other';
    return run().then(
      (answer) => {
        observe(adapter, 'ok', secondsSince(started));
        return answer;
      },
      (err: unknown) => {
        observe(adapter, 'error', secondsSince(started));
        throw err;
      },
    );
  };
  return {
    call: (kind, adapterId, body) => timed(adapterId, () => relay.call(kind, adapterId, body)),
    restAction: (adapterId, request) => timed(adapterId, () => relay.restAction(adapterId, request)),
    restQuery: (adapterId, request) => timed(adapterId, () => relay.restQuery(adapterId, request)),
  };
}
