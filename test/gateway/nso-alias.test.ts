/** `/nso_manager/*`, the real platform's path of the relay, is served through the gateway as `/orchestrator_manager/*` (docs/decisions.md D19). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { NSO_PATH, startRelayFixture, YANG_JSON } from '../core/relay/fixture.ts';
import type { RelayFixture } from '../core/relay/fixture.ts';

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

test('a restQuery sent to /nso_manager through the gateway answers as /orchestrator_manager does', async () => {
  const body = JSON.stringify({ params: { path: '/restconf/data/tailf-ncs:devices/device=ce0', accept: YANG_JSON } });
  const headers = { authorization: `Bearer ${fx.core.adminToken}`, 'content-type': 'application/json' };
  const alias = await request(`${gw.url}/nso_manager/restQuery/${NSO_PATH}`, { method: 'POST', headers, body });
  const direct = await request(`${gw.url}/orchestrator_manager/restQuery/${NSO_PATH}`, { method: 'POST', headers, body });
  assert.equal(alias.status, 200, JSON.stringify(alias.body));
  assert.deepEqual(alias.body, direct.body);
  assert.ok((alias.body as { instance_data: unknown }).instance_data);
});
