/**
 * Adapter instances: who may relay (role admin of OrchestratorManager only),
 * adapters stored as documents beside the configured ones, and
 * `GET /health/adapters`.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMINS_GROUP } from '../../../core/src/auth/bootstrap.ts';
import { groups as groupType } from '../../../core/src/store/doc-types.ts';
import { makeUser, role } from '../../helpers/users.ts';
import pkg from '../../../package.json' with { type: 'json' };
import type { RelayFixture } from './fixture.ts';
import { NSO, NSO_PASSWORD, NSO_USER, restAction, restQuery, startRelayFixture, TIMEOUT_MS, YANG_JSON } from './fixture.ts';

const PACKAGE_VERSION = pkg.version;
let f: RelayFixture;
before(async () => {
  f = await startRelayFixture();
});
after(() => f.close());
beforeEach(() => f.sim.reset());

const query = { params: { path: '/restconf/data/tailf-ncs:devices/device=ce0/name', accept: YANG_JSON } };
const action = { params: { path: '/restconf/data/tailf-ncs:devices/device=ce0/name', accept: YANG_JSON, method: 'GET' }, body: {} };

async function adminsGroupId(): Promise<string> {
  const page = await f.core.store.collection('groups').search({
    where: { kind: 'compare', op: 'eq', field: groupType.fields.get('name')!, value: ADMINS_GROUP },
    sort: [],
    skip: 0,
    limit: 1,
  });
  return page.docs[0]!['_id'] as string;
}

test('relaying needs credentials (401) and the OrchestratorManager admin role (403), checked before the body', async () => {
  assert.equal((await restQuery(f.core, NSO, query, undefined)).status, 200);
  const anonymous = await f.core.request(`/orchestrator_manager/restQuery/${encodeURIComponent(NSO)}`, { method: 'POST', token: null, headers: { 'content-type': 'application/json' }, body: JSON.stringify(query) });
  assert.equal(anonymous.status, 401);
  const nobody = await makeUser(f.core, 'relay-nobody');
  const otherAdmin = await makeUser(f.core, 'relay-om-admin', { roles: [role('OperationsManager', 'admin'), role('Health', 'admin')] });
  for (const token of [nobody.token, otherAdmin.token]) {
    const q = await restQuery(f.core, NSO, query, token);
    assert.equal(q.status, 403, JSON.stringify(q.body));
    assert.match((q.body as { message: string }).message, /OrchestratorManager\.restQuery/);
    assert.equal((await restAction(f.core, NSO, action, token)).status, 403);
    assert.equal((await restAction(f.core, NSO, { bad: true }, token)).status, 403, 'roles are checked before the body');
  }
  assert.equal(f.sim.requests.length, 1);
});

test('a holder of OrchestratorManager.admin, directly or through the admins group, may relay', async () => {
  const direct = await makeUser(f.core, 'relay-admin', { roles: [role('OrchestratorManager', 'admin')] });
  const member = await makeUser(f.core, 'relay-member', { groups: [await adminsGroupId()] });
  for (const token of [direct.token, member.token]) {
    const q = await restQuery(f.core, NSO, query, token);
    assert.equal(q.status, 200, JSON.stringify(q.body));
    assert.deepEqual(q.body, { instance_data: { 'tailf-ncs:name': 'ce0' } });
    assert.deepEqual((await restAction(f.core, NSO, action, token)).body, [{ result: '200', data: { 'tailf-ncs:name': 'ce0' } }]);
  }
});

test('the relay methods are listed under OrchestratorManager', async () => {
  const methods = f.core.core.routes.filter((r) => r.provenance === 'OrchestratorManager').map((r) => `${r.method} ${r.path} ${r.name} ${JSON.stringify(r.roles)}`);
  assert.deepEqual(methods.sort(), [
    'POST /nso_manager/restAction/:adapterId restAction ["admin"]',
    'POST /nso_manager/restQuery/:adapterId restQuery ["admin"]',
    'POST /orchestrator_manager/restAction/:adapterId restAction ["admin"]',
    'POST /orchestrator_manager/restQuery/:adapterId restQuery ["admin"]',
  ]);
});

test('adapters stored as documents are relayed to; on a name clash the configured adapter wins', async () => {
  const adapters = f.core.store.collection('adapters');
  await adapters.insertOne({ _id: 'stored-1', name: 'stored nso', type: 'nso', baseUrl: f.sim.url, credentials: { username: NSO_USER, password: NSO_PASSWORD } });
  await adapters.insertOne({ _id: 'stored-2', name: NSO, type: 'nso', baseUrl: `http://127.0.0.1:${f.closedPort}`, credentials: null });
  await adapters.insertOne({ _id: 'stored-3', name: 'broken doc', type: 'nso', baseUrl: 'not a url' });
  try {
    const stored = await restQuery(f.core, 'stored nso', query);
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    const configured = await restQuery(f.core, NSO, query);
    assert.equal(configured.status, 200, 'the configured Local NSO is used, not the stored one');
    assert.equal((await restQuery(f.core, 'broken doc', query)).status, 404);
    const health = await f.core.request('/health/adapters');
    const ids = (health.body as { results: Array<{ id: string; baseUrl: string }> }).results.map((r) => r.id);
    assert.deepEqual(ids.filter((id) => id === NSO), [NSO]);
    assert.ok(ids.includes('stored nso'));
    assert.ok(!ids.includes('broken doc'));
  } finally {
    for (const id of ['stored-1', 'stored-2', 'stored-3']) await adapters.deleteOne(id);
  }
});

test('GET /health/adapters reports every adapter\'s state, probing in parallel, and never shows credentials', async () => {
  const adapters = f.core.store.collection('adapters');
  await adapters.insertOne({ _id: 'userinfo', name: 'with userinfo', type: 'nso', baseUrl: f.sim.url.replace('http://', 'http://someone:pa55word@'), credentials: { token: 'secret-token' } });
  try {
    const res = await f.core.request('/health/adapters');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = res.body as { results: Array<Record<string, unknown>>; total: number };
    assert.equal(body.total, body.results.length);
    const byId = new Map(body.results.map((r) => [r['id'], r]));
    const online = byId.get(NSO)!;
    const platform = { package_id: 'iap-compat', version: PACKAGE_VERSION, type: 'Adapter' };
    assert.deepEqual({ ...online, latencyMs: 0 }, { id: NSO, ...platform, adapterType: 'nso', baseUrl: f.sim.url, enabled: true, state: 'RUNNING', connection: { state: 'ONLINE' }, reachable: true, latencyMs: 0 });
    assert.equal(typeof online['latencyMs'], 'number');
    const closed = byId.get('closed')!;
    assert.deepEqual([closed['state'], closed['connection']], ['RUNNING', { state: 'OFFLINE' }]);
    assert.equal(closed['reachable'], false);
    assert.match(String(closed['error']), /ECONNREFUSED/);
    assert.deepEqual(byId.get('off'), { id: 'off', ...platform, adapterType: 'nso', baseUrl: f.sim.url, enabled: false, state: 'STOPPED', connection: { state: 'OFFLINE' }, reachable: false, latencyMs: null });
    assert.equal(byId.get('ag')!['adapterType'], 'gateway');
    // The stand-in answers 401 to a wrong password: still an answer, so reachable.
    assert.deepEqual(byId.get('wrong password')!['connection'], { state: 'ONLINE' });
    assert.equal(byId.get('with userinfo')!['baseUrl'], `${f.sim.url}/`);
    const probes = f.sim.requests.filter((r) => r.method === 'HEAD');
    assert.ok(probes.length >= 3);
    assert.ok(probes.every((r) => r.headers['authorization'] === undefined), 'probes send no credentials');
    const text = JSON.stringify(body);
    for (const secret of [NSO_PASSWORD, 'tok-123', 'secret-token', 'pa55word', 'credentials']) assert.ok(!text.includes(secret), `${secret} shown`);
  } finally {
    await adapters.deleteOne('userinfo');
  }
});

test('GET /health/adapters answers promptly when an orchestrator hangs, and any authenticated caller may read it', async () => {
  f.sim.setFault({ delayMs: 3000 });
  const nobody = await makeUser(f.core, 'health-reader');
  const started = Date.now();
  const res = await f.core.request('/health/adapters', { token: nobody.token });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.ok(Date.now() - started < TIMEOUT_MS + 1000, 'probes run in parallel with a short timeout');
  const online = (res.body as { results: Array<Record<string, unknown>> }).results.find((r) => r['id'] === NSO)!;
  assert.deepEqual([online['state'], online['connection']], ['RUNNING', { state: 'OFFLINE' }]);
  // Why it failed is for administrators (docs/auth.md, "What non-administrators see").
  assert.equal(online['error'], undefined);
  assert.match(String(((await f.core.request('/health/adapters')).body as { results: Array<Record<string, unknown>> }).results.find((r) => r['id'] === NSO)!['error']), /no answer within 400 ms/);
  f.sim.reset();
  assert.equal((await f.core.request('/health/adapters', { token: null })).status, 401);
});
