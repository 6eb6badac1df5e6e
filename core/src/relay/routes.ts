/**
 * The orchestrator manager's two relay operations (docs/relay.md). Role `admin` only (Authentication rule 1): the
 * application's admin role, which the `admins` group holds.
 * `/nso_manager/*`, the real platform's path, is the gateway's alias of these.
 */
import { answer, ANY, arrayOf, closed, joiBody, joiParams, routeHelper, STRING } from '../../../kernel/index.ts';
import type { AnyRoute } from '../../../kernel/index.ts';
import type { Relay } from './relay.ts';
import { adapterIdSchema, restActionSchema, restQuerySchema } from './schemas.ts';

export const ORCHESTRATOR_MANAGER = 'OrchestratorManager';
const route = routeHelper({ provenance: ORCHESTRATOR_MANAGER, surface: 'plain' });

export function relayRoutes(relay: Relay): AnyRoute[] {
  return [
    route({
      method: 'POST',
      path: '/orchestrator_manager/restAction/:adapterId',
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
      path: '/orchestrator_manager/restQuery/:adapterId',
      name: 'restQuery',
      roles: ['admin'],
      description: 'Reads data from an orchestrator through the named adapter; answers it as instance_data',
      answer: answer(closed({ instance_data: ANY })),
      input: { params: joiParams(adapterIdSchema), body: joiBody(restQuerySchema) },
      async handle({ params, body }) {
        return { body: await relay.restQuery(params.adapterId, body) };
      },
    }),
  ];
}
