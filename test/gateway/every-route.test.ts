/**
 * Every route the core declares passes through the gateway unchanged: the
 * same status (and, for reads, the same body) as the core answers directly,
 * for an anonymous caller and for the administrator. Except the few paths
 * the gateway answers itself (its metrics and its own description, which
 * covers the core's operations: test/gateway/openapi.test.ts, metrics.test.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyRoute } from '../../kernel/http/route.ts';
import { isOwnPath } from '../../gateway/src/own-routes.ts';
import { openTestStore } from '../helpers/stores.ts';
import { jobs } from '../fixtures/search-data.ts';
import { request, startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';

let core: RunningCore;
let gw: RunningGateway;
before(async () => {
  const store = await openTestStore();
  await store.collection('jobs').insertMany(jobs);
  core = await startCore(store);
  gw = await startGateway(core.url);
});
after(async () => {
  await gw.close();
  await core.close();
});

function urlOf(route: AnyRoute): string {
  return route.path.replace(/:(\w+)/g, (_m, name: string) => {
    if (name === 'collectionName') return 'jobs';
    if (name === 'clientId' || (name === 'id' && route.path.startsWith('/operations-manager/tasks'))) return '00000000-0000-4000-8000-000000000001';
    return '0000000000000000000000a1';
  });
}

const CHANGING = new Set(['/health/server', '/health/system', '/health/status']);

test('every core route answers through the gateway exactly as it does directly', async () => {
  // Logging out would end the token used; writes are compared by status only, reads by body too.
  const routes = core.core.routes.filter((r) => r.path !== '/logout' && !isOwnPath(r.path));
  assert.ok(routes.length > 40);
  for (const route of routes) {
    for (const token of [null, core.adminToken]) {
      const init: RequestInit = {
        method: route.method,
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: '{}' }),
      };
      const direct = await request(`${core.url}${urlOf(route)}`, init);
      const via = await request(`${gw.url}${urlOf(route)}`, init);
      const what = `${route.method} ${route.path} ${token ? 'as admin' : 'anonymous'}`;
      assert.equal(via.status, direct.status, what);
      // The server's and the host's reports change from one call to the next (uptime, free memory, the time of the probe).
      if (route.method === 'GET' && !CHANGING.has(route.path)) assert.deepEqual(via.body, direct.body, what);
    }
  }
});
