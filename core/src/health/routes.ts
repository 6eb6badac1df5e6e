/**
 * The public liveness probe. Every other health route needs credentials
 * (decisions.md item 7); this one only says the process answers.
 */
import { defineRoute } from '../http/route.ts';
import type { AnyRoute } from '../http/route.ts';

export function healthRoutes(): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/health/live',
      name: 'live',
      provenance: 'Health',
      roles: 'public',
      surface: 'plain',
      description: 'Liveness: answers while the process serves requests',
      input: {},
      async handle() {
        return { body: { status: 'ok' } };
      },
    }),
  ];
}
