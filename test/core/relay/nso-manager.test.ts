/**
 * `/nso_manager/*`, the real platform's relay prefix (its 2023.2 route list
 * has `/nso_manager/restAction|restQuery` and no `/orchestrator_manager`),
 * served by the core itself beside the interface's `/orchestrator_manager/*`:
 * the same answers, and one permission for both paths, so no role has to be
 * written twice and the engine's relay tasks need the one they always did.
 * The gateway, which still aliases the prefix, answers it too.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../../helpers/core.ts';
import type { JsonResponse } from '../../helpers/core.ts';
import { startGateway } from '../../helpers/gateway.ts';
import type { RunningGateway } from '../../helpers/gateway.ts';
import { makeUser, role } from '../../helpers/users.ts';
import type { RelayFixture } from './fixture.ts';
import { NSO_PATH, startRelayFixture, YANG_JSON } from './fixture.ts';

let f: RelayFixture;
let gw: RunningGateway;
before(async () => {
  f = await startRelayFixture();
  gw = await startGateway(f.core.url);
});
after(async () => {
  await gw.close();
  await f.close();
});
beforeEach(() => f.sim.reset());

const PREFIXES = ['/nso_manager', '/orchestrator_manager'] as const;
const query = { params: { path: '/restconf/data/tailf-ncs:devices/device=ce0/name', accept: YANG_JSON } };
const action = { params: { path: '/restconf/data/tailf-ncs:devices/device=ce0/name', accept: YANG_JSON, method: 'GET' }, body: {} };

function relay(prefix: string, kind: 'restQuery' | 'restAction', body: unknown, token?: string | null): Promise<JsonResponse> {
  return f.core.request(`${prefix}/${kind}/${NSO_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...(token === undefined ? {} : { token }) });
}

test('restQuery and restAction under /nso_manager answer as under /orchestrator_manager', async () => {
  for (const prefix of PREFIXES) {
    const q = await relay(prefix, 'restQuery', query);
    assert.equal(q.status, 200, `${prefix}: ${JSON.stringify(q.body)}`);
    assert.deepEqual(q.body, { instance_data: { 'tailf-ncs:name': 'ce0' } });
    const a = await relay(prefix, 'restAction', action);
    assert.deepEqual(a.body, [{ result: '200', data: { 'tailf-ncs:name': 'ce0' } }]);
  }
  assert.equal(f.sim.requests.length, 4, 'each call reached the orchestrator once');
});

test('under /nso_manager the same checks hold: 401 without credentials, 403 naming OrchestratorManager.restQuery, 400 for a bad body', async () => {
  assert.equal((await relay('/nso_manager', 'restQuery', query, null)).status, 401);
  const nobody = await makeUser(f.core, 'nso-nobody', { roles: [role('OperationsManager', 'admin')] });
  const refused = await relay('/nso_manager', 'restQuery', query, nobody.token);
  assert.equal(refused.status, 403);
  assert.match((refused.body as { message: string }).message, /OrchestratorManager\.restQuery/);
  assert.equal((await relay('/nso_manager', 'restQuery', { params: 'not an object' })).status, 400);
  assert.equal(f.sim.requests.length, 0);
});

test('one custom role allowing OrchestratorManager.restQuery opens that method under both prefixes, and nothing else', async () => {
  const created = await f.core.request('/authorization/roles', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ role: { provenance: 'Custom', name: 'nso-reader', description: 'reads through the relay', allowedMethods: [{ provenance: 'OrchestratorManager', name: 'restQuery' }] } }),
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const reader = await makeUser(f.core, 'nso-reader', { roles: [(created.body as { data: { _id: string } }).data._id] });
  for (const prefix of PREFIXES) {
    assert.equal((await relay(prefix, 'restQuery', query, reader.token)).status, 200, prefix);
    assert.equal((await relay(prefix, 'restAction', action, reader.token)).status, 403, prefix);
  }
});

test('the method catalog lists each relay method once, and the built-in admin role allows it once', async () => {
  const methods = (await f.core.request('/authorization/methods')).body as { results: Array<{ provenance: string; name: string }> };
  const relayMethods = methods.results.filter((m) => m.provenance === 'OrchestratorManager').map((m) => m.name);
  assert.deepEqual(relayMethods.sort(), ['restAction', 'restQuery']);
  const admin = (await f.core.request(`/authorization/roles/${role('OrchestratorManager', 'admin')}`)).body as { allowedMethods: Array<{ name: string }> };
  assert.deepEqual(admin.allowedMethods.map((m) => m.name).sort(), ['restAction', 'restQuery']);
});

test('through the gateway /nso_manager answers as the core does, whether the gateway aliases it or passes it on', async () => {
  const headers = { authorization: `Bearer ${f.core.adminToken}`, 'content-type': 'application/json' };
  const viaGateway = await request(`${gw.url}/nso_manager/restQuery/${NSO_PATH}`, { method: 'POST', headers, body: JSON.stringify(query) });
  assert.equal(viaGateway.status, 200, JSON.stringify(viaGateway.body));
  assert.deepEqual(viaGateway.body, (await relay('/nso_manager', 'restQuery', query)).body);
});
