/**
 * Drives one target (core or gateway) with autocannon: `connections`
 * keep-alive connections, each repeating the target's sequence (mix.ts) for
 * a fixed time. Every answer is checked and counted by kind in the tally;
 * a non-2xx answer, an unexpected body, a timeout or a socket error is an
 * error.
 */
import autocannon from 'autocannon';
import type { Client, Request } from 'autocannon';
import type { SequenceContext, Step, Target } from './mix.ts';
import type { Tally } from './tally.ts';

/** Our requests carry their kind, so each answer can be counted under it. */
type KindedRequest = Request & { kind: string };

/**
 * The parts of autocannon 9's client (lib/httpClient.js) read here: the
 * request the connection is working on. The public events name no request.
 */
interface ClientInternals {
  readonly requestIterator: { readonly currentRequest: KindedRequest };
}

export interface DriveOptions {
  readonly target: Target;
  readonly url: string;
  readonly token: string;
  readonly connections: number;
  readonly seconds: number;
  /** Seconds an answer may take before it counts as a timeout. */
  readonly timeoutSeconds: number;
  readonly sequence: readonly Step[];
  readonly tally: Tally;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}

function toRequest(step: Step, target: Target, tally: Tally, counter: { n: number }): KindedRequest {
  return {
    kind: step.kind,
    method: step.method,
    setupRequest(request, context) {
      const ctx = context as SequenceContext;
      const path = step.path(ctx);
      // An id this step needs is missing because an earlier step failed (already counted): start over.
      if (path === null) return undefined as unknown as Request;
      counter.n += 1;
      return { ...request, path, ...(step.body ? { body: JSON.stringify(step.body(ctx, counter.n)) } : {}) };
    },
    onResponse(status, body, context) {
      if (status < 200 || status > 299) {
        tally.error(target, step.kind, `HTTP ${status}: ${excerpt(body)}`);
        return;
      }
      if (!step.check) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        tally.error(target, step.kind, `not JSON: ${excerpt(body)}`);
        return;
      }
      const wrong = step.check(parsed, context as SequenceContext);
      if (wrong) tally.error(target, step.kind, `${wrong}: ${excerpt(body)}`);
    },
  };
}

export async function drive(options: DriveOptions): Promise<autocannon.Result> {
  const { target, tally } = options;
  const counter = { n: 0 };
  const setupClient = (client: Client): void => {
    const current = (): string => (client as unknown as ClientInternals).requestIterator.currentRequest.kind;
    // The kind in flight: read once the request is written (autocannon moves to the next request
    // before it reports a timeout, so reading it at the timeout would name the wrong one).
    let inFlight = options.sequence[0]!.kind;
    // The client emits more events than its type declares.
    const events = client as unknown as NodeJS.EventEmitter;
    events.on('request', () => process.nextTick(() => (inFlight = current())));
    events.on('response', (_status: number, _bytes: number, latencyMs: number) => tally.answered(target, current(), latencyMs));
    events.on('timeout', () => tally.error(target, inFlight, `no answer within ${options.timeoutSeconds} s`));
    events.on('connError', (err: Error) => tally.error(target, inFlight, `socket error: ${err.message}`));
  };
  return autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    timeout: options.timeoutSeconds,
    headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
    requests: options.sequence.map((step) => toRequest(step, target, tally, counter)),
    setupClient,
  });
}
