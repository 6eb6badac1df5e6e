/**
 * `GET /health/status`: the platform's load-balancer probe since 2023.1 (it
 * replaced `GET /status`). Public, as Itential's monitoring recommendations
 * say ("requires no login"): 200 with `{host, serverId, serverName, services,
 * timestamp, apps, adapters}` while healthy, and any other answer means
 * unhealthy, so a core whose store does not answer says 503.
 * Shape: Itential's monitoring page and ipctl's `HealthStatus` type
 * (docs/real-platform.md).
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import Joi from 'joi';
import { answer, arrayOf, closed, INTEGER, joiQuery, NULL, oneOfValues, STRING, StoreUnavailableError } from '../../../kernel/index.ts';
import type { AnyRoute, Store } from '../../../kernel/index.ts';
import { healthRoute, storeReachable } from './routes.ts';

export interface HealthStatusDeps {
  readonly store: Store;
}

type StatusQuery = { 'exclude-services'?: boolean };
const statusQuery = joiQuery<StatusQuery>(Joi.object({ 'exclude-services': Joi.boolean() }));

/** The platform names its MongoDB `mongo`; our embedded store is named for what it is. */
function serviceName(store: Store): string {
  return store.kind === 'mongodb' ? 'mongo' : 'sqlite';
}

export function healthStatusRoutes(deps: HealthStatusDeps): AnyRoute[] {
  const host = hostname();
  // Stable for a host across restarts, as the platform's is; the platform's is a 64-hex digest too.
  const serverId = createHash('sha256').update(host).digest('hex');
  return [
    healthRoute({
      method: 'GET',
      path: '/health/status',
      name: 'getHealthStatus',
      roles: 'public',
      description: "The platform's load-balancer probe (replaces GET /status since 2023.1): 200 with the store's liveness while healthy, 503 when the store does not answer; exclude-services=true skips the store check",
      answer: answer(
        closed({
          host: STRING,
          serverId: STRING,
          serverName: NULL,
          services: arrayOf(closed({ service: STRING, status: oneOfValues('running', 'failed') })),
          timestamp: INTEGER,
          apps: oneOfValues('running', 'degraded'),
          adapters: oneOfValues('running', 'degraded'),
        }),
      ),
      input: { query: statusQuery },
      async handle({ query }) {
        const services = [];
        if (query['exclude-services'] !== true) {
          if (!(await storeReachable(deps.store))) throw new StoreUnavailableError(`the ${serviceName(deps.store)} store does not answer`);
          services.push({ service: serviceName(deps.store), status: 'running' });
        }
        // Our applications live in this process and our adapters are configured connections, not
        // processes: both run while the core answers. Connection state is /health/adapters' business.
        return { body: { host, serverId, serverName: null, services, timestamp: Date.now(), apps: 'running', adapters: 'running' } };
      },
    }),
  ];
}
