/**
 * ServiceModels through the orchestrator relay, against the NSO stand-in:
 * the first nso adapter by default or the one named by `adapterId`, the
 * RESTCONF read it sends, and the relay's errors passed on.
 */
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { JSON_HEADERS, simCall } from '../../../tools/nso-sim/test-client.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import { makeUser, role } from '../../helpers/users.ts';
import { NSO, NSO_PASSWORD, NSO_USER, startRelayFixture } from '../relay/fixture.ts';
import type { RelayFixture } from '../relay/fixture.ts';

let f: RelayFixture;
before(async () => {
  f = await startRelayFixture();
});
afterEach(() => f.sim.reset());
after(() => f.close());

interface Models {
  adapterId: string;
  results: Array<{ name: string; module: string; path: string; kind: string; instances: number }>;
  total: number;
}

const AUTH = `${NSO_USER}:${NSO_PASSWORD}`;

async function seedServices(): Promise<void> {
  const services = {
    'tailf-ncs:services': {
      'l3vpn:l3vpn': [{ name: 'acme', 'route-distinguisher': 100, endpoint: [{ id: 'a', device: 'ce0' }] }, { name: 'beta', 'route-distinguisher': 200 }],
      'loopback:loopback': { instance: [{ name: 'lo1', device: 'ce1' }] },
      // NSO's own children of the container (same module, so unprefixed) are not service models.
      'plan-notifications': { subscription: [{ name: 'all plans' }] },
    },
  };
  const res = await simCall(f.sim.url, 'PATCH', '/restconf/data/tailf-ncs:services', { headers: JSON_HEADERS, body: services, auth: AUTH });
  assert.equal(res.status, 204, res.text);
}

test('ServiceModels lists the service models of the first nso adapter through the relay', async () => {
  await seedServices();
  const before = f.sim.requests.length;
  const res = await f.core.request('/service_catalog/ServiceModels');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, {
    adapterId: NSO,
    results: [
      { name: 'l3vpn:l3vpn', module: 'l3vpn', path: '/restconf/data/tailf-ncs:services/l3vpn:l3vpn', kind: 'list', instances: 2 },
      { name: 'loopback:loopback', module: 'loopback', path: '/restconf/data/tailf-ncs:services/loopback:loopback', kind: 'container', instances: 1 },
    ],
    total: 2,
  });
  const sent = f.sim.requests.slice(before);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.method, 'GET');
  assert.equal(sent[0]!.path, '/restconf/data/tailf-ncs:services?depth=3');
  assert.equal(sent[0]!.headers.accept, 'application/yang-data+json');
  assert.equal(sent[0]!.headers.authorization, `Basic ${Buffer.from(AUTH).toString('base64')}`);
});

test('an orchestrator without service instances has no service models', async () => {
  const res = await f.core.request(`/service_catalog/ServiceModels?adapterId=${encodeURIComponent(NSO)}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, { adapterId: NSO, results: [], total: 0 });
});

test('adapterId chooses the adapter; unknown, disabled and gateway adapters and refused credentials are errors', async () => {
  await seedServices();
  const viaBase = await f.core.request(`/service_catalog/ServiceModels?adapterId=${encodeURIComponent('restconf base')}`);
  // That adapter's base already ends in /restconf, so the services path lands on /restconf/restconf/...: the sim's 404 is passed on.
  assert.equal(viaBase.status, 404, JSON.stringify(viaBase.body));
  assert.equal((viaBase.body as { code: string }).code, 'UPSTREAM_FAILED');
  for (const [adapter, status] of [['nobody', 404], ['off', 404], ['ag', 404], ['wrong password', 502]] as const) {
    const res = await f.core.request(`/service_catalog/ServiceModels?adapterId=${encodeURIComponent(adapter)}`);
    assert.equal(res.status, status, `${adapter}: ${JSON.stringify(res.body)}`);
  }
  const extra = await f.core.request('/service_catalog/ServiceModels?adapter=x');
  assert.equal(extra.status, 400);
});

test('an orchestrator failure is passed on with its status', async () => {
  f.sim.setFault({ failStatus: 503 });
  const res = await f.core.request('/service_catalog/ServiceModels');
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.equal((res.body as { code: string }).code, 'UPSTREAM_FAILED');
});

test('readers may list service models; a caller without a ServiceCatalog role may not', async () => {
  const reader = await makeUser(f.core, 'models reader', { roles: [role('ServiceCatalog', 'apiread')] });
  const ok = await f.core.request('/service_catalog/ServiceModels', { token: reader.token });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal((ok.body as Models).adapterId, NSO);
  const nobody = await makeUser(f.core, 'models nobody');
  assert.equal((await f.core.request('/service_catalog/ServiceModels', { token: nobody.token })).status, 403);
});

test('without any nso adapter ServiceModels is a 404 naming adapterId', async () => {
  const store = await openTestStore();
  const core = await startCore(store);
  try {
    const res = await core.request('/service_catalog/ServiceModels');
    assert.equal(res.status, 404, JSON.stringify(res.body));
    assert.deepEqual((res.body as { details: Array<{ parameter: string }> }).details.map((d) => d.parameter), ['adapterId']);
  } finally {
    await core.close();
    await store.close();
  }
});
