/**
 * The orchestrator manager's two relay operations (docs/relay.md). Role `admin` only (Authentication rule 1): the
 * application's admin role, which the `admins` group holds.
 *
 * Each is served at two paths: `/orchestrator_manager/*`, the interface document's, and `/nso_manager/*`, the real
 * platform's (its 2023.2 route list has `/nso_manager/restAction|restQuery` and no `/orchestrator_manager`). Both are
 * the same method of the same provenance (`OrchestratorManager.restAction`), so one role grants both paths, the
 * engine's relay tasks need that one permission, and the method catalog lists it once.
 */
import { answer, ANY, arrayOf, closed, joiBody, joiParams, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnyRoute } from '../../../kernel/index.ts';
import type { Relay } from './relay.ts';
import { adapterIdSchema, restActionSchema, restQuerySchema } from './schemas.ts';

export const ORCHESTRATOR_MANAGER = 'OrchestratorManager';
const route = routeHelper({ provenance: ORCHESTRATOR_MANAGER, shape: 'plain' });

/** Where the relay is served: the interface's prefix, and the platform's. */
export const RELAY_PREFIXES = ['/orchestrator_manager', '/nso_manager'] as const;

export function relayRoutes(relay: Relay): AnyRoute[] {
  return RELAY_PREFIXES.flatMap((prefix) => [
    route({
      method: 'POST',
      path: `${prefix}/restAction/:adapterId`,
      name: 'restAction',
      roles: ['admin'],
      description: 'Sends a REST call (any method) to an orchestrator through the named adapter; answers its status',
      answer: answer(arrayOf(closed({ result: STRING, data: ANY }, ['data']))),
      input: { params: joiParams(adapterIdSchema), body: joiBody(restActionSchema) },
      async handle({ params, body }) {
        return { body: await relay.restAction(params.adapterId, body) };
      },
    }),
    route({
      method: 'POST',
      path: `${prefix}/restQuery/:adapterId`,
      name: 'restQuery',
      roles: ['admin'],
      description: 'Reads data from an orchestrator through the named adapter; answers it as instance_data',
      answer: answer(closed({ instance_data: ANY })),
      input: { params: joiParams(adapterIdSchema), body: joiBody(restQuerySchema) },
      async handle({ params, body }) {
        return { body: await relay.restQuery(params.adapterId, body) };
      },
    }),
  ]);
}
