/**
 * What the two relay tasks share: both pass `params` (and restAction its
 * `body`) to an orchestrator adapter through `ctx.services.relay` and hand
 * the answer on as outgoing `result`.
 *
 * Their app is `NSOManager`, the name the real platform gives the
 * orchestrator relay's tasks; each is also registered under the project's
 * earlier `OrchestratorManager`, so workflows saved with that name still run.
 *
 * A refused or unavailable relay ends the task `error` with the relay's
 * message (or its error value when that is not an Error, as adapters answer
 * with objects), so an error transition can take it. Bad input throws a
 * TaskError; the engine turns it into an `error` outcome with that message.
 */
import { relayPermission } from '../permissions.ts';
import type { TaskHandler } from '../types.ts';
import { errorOf, optionalObject, requireString } from './shared.ts';

export type RelayTaskApp = 'NSOManager' | 'OrchestratorManager';

export function relayTask(kind: 'restAction' | 'restQuery', app: RelayTaskApp = 'NSOManager'): TaskHandler {
  const withBody = kind === 'restAction';
  return {
    name: kind,
    app,
    type: 'automatic',
    // The relay route of the same name: what a caller needs to make this call over HTTP.
    reach: { outside: true, needs: relayPermission(kind) },
    incoming: withBody ? ['adapterId', 'params', 'body'] : ['adapterId', 'params'],
    outgoing: ['result'],
    async run(ctx) {
      const adapterId = requireString(ctx.incoming, 'adapterId');
      const params = optionalObject(ctx.incoming, 'params');
      const request: Record<string, unknown> = withBody ? { params, body: optionalObject(ctx.incoming, 'body') } : { params };
      try {
        const result = await ctx.services.relay(kind, adapterId, request);
        return { finishState: 'success', outgoing: { result } };
      } catch (err) {
        return { finishState: 'error', outgoing: {}, error: errorOf(err) };
      }
    },
  };
}
