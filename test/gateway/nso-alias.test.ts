/**
 * `/nso_manager/*`, the real platform's path of the relay, goes upstream as it
 * came: the gateway rewrites it to nothing else, and our core serves it
 * natively beside `/orchestrator_manager/*` (docs/real-platform.md).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { NSO_PATH, startRelayFixture, YANG_JSON } from '../core/relay/fixture.ts';
import type { RelayFixture } from '../core/relay/fixture.ts';
import { startPlatformSim } from '../../tools/platform-sim/server.ts';
import type { PlatformSim } from '../../tools/platform-sim/server.ts';
import { opensslMissing } from '../../tools/platform-sim/tls.ts';

const body = JSON.stringify({ params: { path: '/restconf/data/tailf-ncs:devices/device=ce0', accept: YANG_JSON } });

describe('in front of our core', () => {
  let fx: RelayFixture;
  let gw: RunningGateway;
  before(async () => {
    fx = await startRelayFixture();
    gw = await startGateway(fx.core.url);
  });
  after(async () => {
    await gw.close();
    await fx.close();
  });

  test('a restQuery sent to /nso_manager through the gateway is answered by the core at /nso_manager, as /orchestrator_manager is', async () => {
    const headers = { authorization: `Bearer ${fx.core.adminToken}`, 'content-type': 'application/json' };
    const native = await request(`${gw.url}/nso_manager/restQuery/${NSO_PATH}`, { method: 'POST', headers, body });
    const direct = await request(`${gw.url}/orchestrator_manager/restQuery/${NSO_PATH}`, { method: 'POST', headers, body });
    assert.equal(native.status, 200, JSON.stringify(native.body));
    assert.deepEqual(native.body, direct.body);
    assert.ok((native.body as { instance_data: unknown }).instance_data);
  });
});

const missing = opensslMissing();
describe('in front of the platform stand-in', { skip: missing === null ? false : `skipped: ${missing}` }, () => {
  let fx: RelayFixture;
  let sim: PlatformSim;
  let gw: RunningGateway;
  before(async () => {
    fx = await startRelayFixture();
    sim = await startPlatformSim({ coreUrl: fx.core.url, plainPort: 0 });
    gw = await startGateway(sim.plainUrl!);
  });
  after(async () => {
    await gw.close();
    await sim.close();
    await fx.close();
  });

  test('/nso_manager reaches the upstream as it was sent, path and query, and the platform answers it', async () => {
    const headers = { cookie: `token=${fx.core.adminToken}`, 'content-type': 'application/json' };
    const res = await request(`${gw.url}/nso_manager/restQuery/${NSO_PATH}?trace=1`, { method: 'POST', headers, body });
    const seen = sim.requests.filter((r) => r.method === 'POST');
    assert.deepEqual(seen.map((r) => r.url), [`/nso_manager/restQuery/${NSO_PATH}?trace=1`]);
    assert.equal(seen[0]!.refused, null, 'the platform serves /nso_manager');
    assert.equal(seen[0]!.forwarded, `POST /nso_manager/restQuery/${NSO_PATH}?trace=1`);
    // The core's answer to the query parameter it does not read: what matters is that it got the call.
    assert.ok(res.status === 200 || res.status === 400, JSON.stringify(res.body));
  });
});
