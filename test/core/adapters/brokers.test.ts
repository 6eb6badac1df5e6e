/**
 * `GET /adapters/brokers/mapping`: which adapter instances serve each broker,
 * from the configured and stored adapters, guarded by the Adapters roles;
 * and the two legacy reads the gateway rewrites onto it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { startGateway } from '../../helpers/gateway.ts';
import type { RunningGateway } from '../../helpers/gateway.ts';
import { makeUser, role } from '../../helpers/users.ts';

const ADAPTERS = [
  { name: 'Local NSO', type: 'nso', baseUrl: 'http://127.0.0.1:9', credentials: { username: 'u', password: 'p' } },
  { name: 'lab nso', type: 'nso', baseUrl: 'http://127.0.0.1:9' },
  { name: 'off nso', type: 'nso', baseUrl: 'http://127.0.0.1:9', enabled: false },
  { name: 'ag', type: 'gateway', baseUrl: 'http://127.0.0.1:9' },
];

let store: Store;
let core: RunningCore;
let gw: RunningGateway;

before(async () => {
  store = await openTestStore();
  // An adapter kept as a document serves its brokers like a configured one.
  await store.collection('adapters').insertOne({ _id: 'stored-nso', name: 'stored nso', type: 'nso', baseUrl: 'http://127.0.0.1:9' });
  core = await startCore(store, { ADAPTERS: JSON.stringify(ADAPTERS) });
  gw = await startGateway(core.url, { PLATFORM_RELEASE: '2022.1' });
});
after(async () => {
  await gw.close();
  await core.close();
  await store.close();
});

const MAPPING = { aaa: ['Local AAA'], config: ['Local NSO', 'lab nso', 'stored nso'], device: ['Local NSO', 'lab nso', 'stored nso'] };

test('every enabled orchestrator serves device and config, local authentication serves aaa; gateways and disabled adapters serve none', async () => {
  const res = await core.request('/adapters/brokers/mapping');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, MAPPING);
});

test('reading it needs an Adapters role: admin (one of the Platform.admin replacements) or apiread', async () => {
  const nobody = await makeUser(core, 'broker-nobody', { roles: [role('OperationsManager', 'admin')] });
  const adaptersAdmin = await makeUser(core, 'broker-admin', { roles: [role('Adapters', 'admin')] });
  const reader = await makeUser(core, 'broker-reader', { roles: [role('Adapters', 'apiread')] });
  assert.equal((await core.request('/adapters/brokers/mapping', { token: null })).status, 401);
  assert.equal((await core.request('/adapters/brokers/mapping', { token: nobody.token })).status, 403);
  for (const { token } of [adaptersAdmin, reader]) assert.deepEqual((await core.request('/adapters/brokers/mapping', { token })).body, MAPPING);
});

test('it takes no parameters: an unknown one is a 400 naming it', async () => {
  const res = await core.request('/adapters/brokers/mapping?broker=device');
  assert.equal(res.status, 400);
  assert.match(JSON.stringify(res.body), /broker/);
});

test('through the gateway at 2022.1, GET /config/hosts answers the mapping and GET /broker/host/:name one broker\'s adapters', async () => {
  const headers = { authorization: `Bearer ${core.adminToken}` };
  const hosts = await request(`${gw.url}/config/hosts`, { headers });
  assert.equal(hosts.status, 200, JSON.stringify(hosts.body));
  assert.deepEqual(hosts.body, MAPPING);
  assert.equal(hosts.headers.get('link'), '</adapters/brokers/mapping>; rel="successor-version"');
  assert.ok(hosts.headers.get('deprecation'));
  for (const [name, expected] of [['device', MAPPING.device], ['aaa', ['Local AAA']], ['nobody-serves-this', []], ['constructor', []]] as const) {
    const one = await request(`${gw.url}/broker/host/${name}`, { headers });
    assert.equal(one.status, 200, `${name}: ${JSON.stringify(one.body)}`);
    assert.deepEqual(one.body, expected, name);
  }
});

test('at 2022.2 both legacy reads are removed: 410 naming the replacement', async () => {
  const removed = await startGateway(core.url, { PLATFORM_RELEASE: '2022.2' });
  try {
    for (const path of ['/config/hosts', '/broker/host/device']) {
      const res = await request(`${removed.url}${path}`, { headers: { authorization: `Bearer ${core.adminToken}` } });
      assert.equal(res.status, 410, path);
      assert.match(String(res.body), /\/adapters\/brokers\/mapping/);
    }
  } finally {
    await removed.close();
  }
});
