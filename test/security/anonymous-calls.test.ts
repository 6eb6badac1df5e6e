/**
 * Authentication on every route: each route the core mounts, each legacy
 * operation of the gateway's mapping table and the gateway's own routes
 * refuse a caller without credentials (and one with a forged token), in the
 * surface's own shape, except the documented public ones (docs/auth.md).
 * The routes are enumerated from what the apps mount, never listed by hand.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyRoute } from '../../kernel/http/route.ts';
import { openTestStore } from '../helpers/stores.ts';
import { compareReleases } from '../../gateway/src/releases.ts';
import { request, startCore } from '../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';

/** docs/auth.md: the only routes a caller may use without credentials. */
const PUBLIC_CORE = new Set(['GET /health/live', 'GET /health/status', 'POST /login', 'POST /oauth/token', 'GET /openapi.json', 'GET /docs', 'GET /docs/:file']);
const PUBLIC_GATEWAY = new Set(['GET /gateway/health/live', 'GET /openapi.json', 'GET /docs', 'GET /docs/swagger-ui.css']);
const FORGED = 'f'.repeat(64);

let core: RunningCore;
let gw: RunningGateway;
before(async () => {
  core = await startCore((await openTestStore()));
  gw = await startGateway(core.url);
});
after(async () => {
  await gw.close();
  await core.close();
});

/** A concrete URL for a route template: every parameter gets a well-formed value. */
function concrete(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => (name === 'collectionName' ? 'jobs' : '0000000000000000000000a1'));
}

function call(base: string, method: string, path: string, token: string | null): Promise<JsonResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers['authorization'] = `Bearer ${token}`;
  return request(`${base}${concrete(path)}`, { method, headers, ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }) });
}

/** The error shape of each surface (docs/errors.md). */
function assertShapedError(route: AnyRoute, res: JsonResponse, what: string): void {
  assert.equal(res.headers.get('x-error-code'), 'UNAUTHENTICATED', what);
  const body = res.body as Record<string, unknown>;
  assert.equal(typeof body, 'object', `${what}: an error object`);
  assert.equal(typeof body['message'], 'string', `${what}: names what was wrong`);
  if (route.shape === 'operations-manager') {
    assert.equal(body['data'], null, `${what}: operations-manager envelope`);
    assert.ok('metadata' in body, `${what}: operations-manager envelope`);
  } else if (route.shape === 'plain') {
    assert.equal(body['code'], 'UNAUTHENTICATED', what);
  }
}

test('every core route refuses an anonymous caller and a forged token with 401, directly and through the gateway, except the public ones', async () => {
  const routes = core.core.routes;
  assert.ok(routes.length > 100, `the core mounts ${routes.length} routes`);
  const publicSeen: string[] = [];
  for (const route of routes) {
    const id = `${route.method} ${route.path}`;
    if (route.roles === 'public') {
      assert.ok(PUBLIC_CORE.has(id), `${id} is public but not documented as such`);
      publicSeen.push(id);
      continue;
    }
    for (const [where, base] of [['core', core.url], ['gateway', gw.url]] as const) {
      for (const token of [null, FORGED]) {
        const what = `${id} via ${where} ${token ? 'with a forged token' : 'anonymous'}`;
        const res = await call(base, route.method, route.path, token);
        assert.equal(res.status, 401, what);
        assertShapedError(route, res, what);
      }
    }
  }
  assert.deepEqual(publicSeen.sort(), [...PUBLIC_CORE].sort(), 'every documented public route exists');
});

test('the public core routes answer without credentials and reveal nothing about accounts', async () => {
  assert.equal((await request(`${gw.url}/health/live`)).status, 200);
  // The platform's monitoring probe (docs/auth.md): states of the services, never an account or a secret.
  const status = await request(`${gw.url}/health/status`);
  assert.equal(status.status, 200);
  assert.doesNotMatch(JSON.stringify(status.body), /admin|password|token|baseUrl/i);
  const login = await request(`${gw.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'nobody', password: 'x' }) });
  assert.equal(login.status, 401, 'an unknown user cannot log in');
  const token = await request(`${gw.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=nobody&client_secret=x' });
  assert.equal(token.status, 401, 'an unknown service account gets no token');
});

test('every legacy operation of the mapping table refuses an anonymous caller: 401 in the legacy form, or 410 once removed', async () => {
  const release = core.config.platform.release;
  assert.ok(gw.gateway.entries.length >= 100);
  const wrong: string[] = [];
  for (const entry of gw.gateway.entries) {
    const removed = compareReleases(release, entry.removed) >= 0;
    for (const token of [null, FORGED]) {
      const what = `${entry.id} (${entry.legacy.method} ${entry.legacy.path}) ${token ? 'with a forged token' : 'anonymous'}`;
      const res = await call(gw.url, entry.legacy.method, entry.legacy.path, token);
      if (res.status !== (removed ? 410 : 401) || typeof res.body !== 'string') wrong.push(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  assert.deepEqual(wrong, [], 'each answer is 401 (410 once removed) with a plain JSON string body');
});

test("the gateway's own routes refuse an anonymous caller, except its liveness probe and its description", async () => {
  for (const path of ['/gateway/audit/report', '/gateway/audit/report?format=csv', '/gateway/audit/report?format=html', '/metrics']) {
    for (const token of [null, FORGED]) {
      const res = await call(gw.url, 'GET', path, token);
      assert.equal(res.status, 401, `${path} ${token ? 'forged' : 'anonymous'}`);
      assert.ok(!String(typeof res.body === 'string' ? res.body : JSON.stringify(res.body)).includes('<html'), `${path}: no report is shown`);
    }
  }
  for (const id of PUBLIC_GATEWAY) {
    const [method, path] = id.split(' ') as [string, string];
    assert.equal((await call(gw.url, method, path, null)).status, 200, id);
  }
});
