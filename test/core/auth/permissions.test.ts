/**
 * Every declared route, table-driven: anonymous callers get 401, a caller
 * without roles gets 403, the administrator gets neither. A new route that
 * forgets its method name or roles fails here (and in http/routes.test.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyRoute } from '../../../kernel/http/route.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { makeUser, role } from '../../helpers/users.ts';
import type { TestUser } from '../../helpers/users.ts';

const UUID = '00000000-0000-4000-8000-000000000001';
const HEX = '0000000000000000000000a1';

/** A concrete URL for a route: every path parameter filled with a well-formed value. */
function urlOf(route: AnyRoute): string {
  return route.path.replace(/:(\w+)/g, (_m, name: string) => {
    if (name === 'collectionName') return 'jobs';
    if (name === 'clientId' || (name === 'id' && route.path.startsWith('/operations-manager/tasks'))) return UUID;
    return HEX;
  });
}

let core: RunningCore;
let nobody: TestUser;
let reader: TestUser;
let routes: readonly AnyRoute[];
before(async () => {
  core = await startCore((await openTestStore()));
  nobody = await makeUser(core, 'no-roles');
  reader = await makeUser(core, 'om-reader', { roles: [role('OperationsManager', 'apiread')] });
  // Logging out would end the token the loop uses; it has its own test.
  routes = core.core.routes.filter((r) => r.path !== '/logout');
});
after(() => core.close());

const call = (route: AnyRoute, token: string | null) =>
  core.request(urlOf(route), { method: route.method, token, ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) });

test('an anonymous caller gets 401 on every route that is not public', async () => {
  const guarded = routes.filter((r) => r.roles !== 'public');
  assert.ok(guarded.length >= 10);
  for (const route of guarded) {
    const res = await call(route, null);
    assert.equal(res.status, 401, `${route.method} ${route.path}`);
  }
});

test('a caller without roles gets 403 on every route that needs a role', async () => {
  for (const route of routes.filter((r) => Array.isArray(r.roles))) {
    const res = await call(route, nobody.token);
    assert.equal(res.status, 403, `${route.method} ${route.path}: ${JSON.stringify(res.body)}`);
    assert.equal(res.headers.get('x-error-code'), 'FORBIDDEN');
  }
});

test('a caller without roles may use the routes open to any caller', async () => {
  for (const route of routes.filter((r) => r.roles === 'authenticated')) {
    const res = await call(route, nobody.token);
    assert.notEqual(res.status, 401, `${route.method} ${route.path}`);
    assert.notEqual(res.status, 403, `${route.method} ${route.path}`);
  }
});

test('the administrator is never refused for lack of credentials or roles', async () => {
  for (const route of routes) {
    const res = await call(route, core.adminToken);
    assert.ok(res.status !== 401 && res.status !== 403, `${route.method} ${route.path} answered ${res.status}`);
  }
});

test('a role allows exactly the methods it lists', async () => {
  assert.equal((await core.request('/operations-manager/jobs', { token: reader.token })).status, 200);
  assert.equal((await core.request('/indexes/jobs/status', { token: reader.token })).status, 403);
});
