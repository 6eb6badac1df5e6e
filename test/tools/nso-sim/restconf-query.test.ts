/**
 * nso-sim's RESTCONF query parameters (depth, fields, dry-run, rollback-id)
 * and actions, over real HTTP.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNsoSim } from '../../../tools/nso-sim/server.ts';
import type { NsoSim } from '../../../tools/nso-sim/server.ts';
import { assertWellFormedXml, JSON_HEADERS, simCall } from '../../../tools/nso-sim/test-client.ts';

let sim: NsoSim;
const json = (method: string, path: string, body?: object) => simCall(sim.url, method, path, { headers: JSON_HEADERS, ...(body === undefined ? {} : { body }) });
const DEVICES = '/restconf/data/tailf-ncs:devices';
const OPS = '/restconf/operations/tailf-ncs:devices';

type Errors = { 'ietf-restconf:errors': { error: { 'error-tag': string; 'error-message': string }[] } };
const errorTag = (body: unknown) => (body as Errors)['ietf-restconf:errors'].error[0]?.['error-tag'];

before(async () => {
  sim = await startNsoSim();
});
beforeEach(() => sim.reset());
after(() => sim.close());

test('depth=1 answers the target without children; list entries keep their keys', async () => {
  assert.deepEqual((await json('GET', `${DEVICES}?depth=1`)).json(), { 'tailf-ncs:devices': {} });
  assert.deepEqual((await json('GET', `${DEVICES}/device=ce0?depth=1`)).json(), { 'tailf-ncs:device': [{ name: 'ce0' }] });
});

test('depth=2 and depth=3 reach one and two levels further; unbounded is the whole subtree', async () => {
  const two = (await json('GET', `${DEVICES}/device=ce0?depth=2`)).json() as { 'tailf-ncs:device': Record<string, unknown>[] };
  const entry = two['tailf-ncs:device'][0];
  assert.equal(entry?.['address'], '127.0.0.1');
  assert.deepEqual(entry?.['config'], {}, 'config is at level 2, its children at 3');
  const three = (await json('GET', `${DEVICES}/device=ce0?depth=3`)).json() as { 'tailf-ncs:device': { config: Record<string, unknown> }[] };
  assert.equal(three['tailf-ncs:device'][0]?.config['tailf-ned-cisco-ios:hostname'], 'ce0');
  assert.deepEqual(three['tailf-ncs:device'][0]?.config['tailf-ned-cisco-ios:interface'], {});
  const unbounded = await json('GET', `${DEVICES}/device=ce0?depth=unbounded`);
  assert.deepEqual(unbounded.json(), (await json('GET', `${DEVICES}/device=ce0`)).json());
});

test('an invalid depth is 400', async () => {
  for (const depth of ['0', 'x', '70000', '1.5']) {
    const res = await json('GET', `${DEVICES}?depth=${depth}`);
    assert.equal(res.status, 400, depth);
    assert.equal(errorTag(res.json()), 'invalid-value');
  }
});

test('fields keeps the named children of the target, or of each entry of a list', async () => {
  const perEntry = await json('GET', `${DEVICES}/device?fields=name,port`);
  assert.deepEqual(perEntry.json(), { 'tailf-ncs:device': [{ name: 'ce0', port: 10022 }, { name: 'ce1', port: 10023 }, { name: 'pe0', port: 10024 }] });
  const single = await json('GET', `${DEVICES}/device=ce0?fields=address;port`);
  assert.deepEqual(single.json(), { 'tailf-ncs:device': [{ address: '127.0.0.1', port: 10022 }] });
});

test('fields takes a/b paths and a(b;c) groups', async () => {
  const path = await json('GET', `${DEVICES}/device=ce0?fields=config/tailf-ned-cisco-ios:hostname`);
  assert.deepEqual(path.json(), { 'tailf-ncs:device': [{ config: { 'tailf-ned-cisco-ios:hostname': 'ce0' } }] });
  const group = await json('GET', `${DEVICES}?fields=device(name;state)`);
  const devices = (group.json() as { 'tailf-ncs:devices': { device: Record<string, unknown>[] } })['tailf-ncs:devices'].device;
  assert.deepEqual(devices[0], { name: 'ce0', state: { 'admin-state': 'unlocked' } });
  assert.equal(devices.length, 3);
  const bad = await json('GET', `${DEVICES}?fields=device(name`);
  assert.equal(bad.status, 400);
});

test('dry-run reports the change as a cli diff and does not apply it', async () => {
  const res = await json('POST', `${DEVICES}?dry-run`, { device: [{ name: 'ce9', address: '10.0.0.9' }] });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json(), { 'dry-run-result': { cli: { 'local-node': { data: '+devices device ce9 address 10.0.0.9' } } } });
  assert.equal((await json('GET', `${DEVICES}/device=ce9`)).status, 404, 'nothing was created');
});

test('dry-run=native answers per device; dry-run works for PUT, PATCH and DELETE; other formats are 400', async () => {
  const patch = await json('PATCH', `${DEVICES}/device=ce0/config?dry-run=native`, { config: { 'tailf-ned-cisco-ios:hostname': 'edge0' } });
  assert.deepEqual(patch.json(), { 'dry-run-result': { native: { device: [{ name: 'ce0', data: '-hostname ce0\n+hostname edge0' }] } } });
  const put = await json('PUT', `${DEVICES}/device=ce1/address?dry-run=cli`, { address: '10.9.9.9' });
  assert.match(put.text, /-devices device ce1 address 127\.0\.0\.1\\n\+devices device ce1 address 10\.9\.9\.9/);
  const del = await json('DELETE', `${DEVICES}/device=pe0?dry-run`);
  assert.equal(del.status, 200);
  assert.match(del.text, /-devices device pe0 config hostname pe0/);
  assert.equal((await json('GET', `${DEVICES}/device=pe0`)).status, 200, 'the dry-run DELETE left pe0 in place');
  assert.equal((await json('PATCH', `${DEVICES}/device=ce0?dry-run=xml`, { device: [{ name: 'ce0' }] })).status, 400);
});

test('dry-run answers in XML too', async () => {
  const res = await simCall(sim.url, 'DELETE', `${DEVICES}/device=ce1/port?dry-run`);
  assert.equal(res.status, 200);
  assert.match(res.text, /^<dry-run-result xmlns="http:\/\/tail-f\.com\/ns\/tailf-restconf"><cli><local-node><data>-devices device ce1 port 10023<\/data>/);
  assertWellFormedXml(res.text);
});

test('rollback-id=true answers the new rollback id in a tailf-restconf:result body; ids increase', async () => {
  const first = await json('PATCH', `${DEVICES}/device=ce0/config?rollback-id=true`, { config: { 'tailf-ned-cisco-ios:hostname': 'a' } });
  assert.equal(first.status, 200, 'a 204 cannot carry the id, so it becomes 200');
  const firstId = (first.json() as { 'tailf-restconf:result': { rollback: { id: number } } })['tailf-restconf:result'].rollback.id;
  assert.equal(firstId, 10001);
  const plain = await json('PATCH', `${DEVICES}/device=ce0/config`, { config: { 'tailf-ned-cisco-ios:hostname': 'b' } });
  assert.equal(plain.status, 204, 'without the parameter the answer stays 204');
  const created = await json('POST', `${DEVICES}?rollback-id`, { device: [{ name: 'ce5' }] });
  assert.equal(created.status, 201);
  assert.ok(created.headers.location);
  assert.deepEqual(created.json(), { 'tailf-restconf:result': { rollback: { id: 10003 } } });
  assert.equal((await json('GET', `${DEVICES}?rollback-id=true`)).status, 400, 'rollback-id applies to changes only');
});

test('unknown and repeated query parameters are 400; NSO commit parameters are accepted', async () => {
  assert.equal((await json('GET', `${DEVICES}?nonsense=1`)).status, 400);
  assert.equal((await json('GET', `${DEVICES}?depth=1&depth=2`)).status, 400);
  const commit = await json('PATCH', `${DEVICES}/device=ce0?no-networking&commit-queue=async`, { device: [{ name: 'ce0', port: 1 }] });
  assert.equal(commit.status, 204);
});

test('POST to /restconf/operations/.../device=ce0/sync-from answers 200 with tailf-ncs:output', async () => {
  const res = await json('POST', `${OPS}/device=ce0/sync-from`);
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.json(), { 'tailf-ncs:output': { result: true } });
  const xml = await simCall(sim.url, 'POST', `${OPS}/device=ce0/sync-from`);
  assert.equal(xml.text, '<output xmlns="http://tail-f.com/ns/ncs"><result>true</result></output>');
});

test('actions also run by POST under /restconf/data, with or without an input body', async () => {
  const res = await json('POST', `${DEVICES}/device=ce1/check-sync`, { input: {} });
  assert.deepEqual(res.json(), { 'tailf-ncs:output': { result: 'in-sync' } });
  const keys = await json('POST', `${DEVICES}/device=pe0/ssh/fetch-host-keys`);
  const output = (keys.json() as { 'tailf-ncs:output': { result: string; fingerprint: { value: string }[] } })['tailf-ncs:output'];
  assert.equal(output.result, 'unchanged');
  assert.match(output.fingerprint[0]?.value ?? '', /^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
});

test('a devices-wide action answers one result per device', async () => {
  const res = await json('POST', `${OPS}/check-sync`);
  assert.deepEqual(res.json(), { 'tailf-ncs:output': { 'sync-result': ['ce0', 'ce1', 'pe0'].map((device) => ({ device, result: 'in-sync' })) } });
});

test('a locked device fails sync-from with result false and an info text', async () => {
  assert.equal((await json('PATCH', `${DEVICES}/device=ce0/state`, { state: { 'admin-state': 'locked' } })).status, 204);
  const res = await json('POST', `${OPS}/device=ce0/sync-from`);
  assert.deepEqual(res.json(), { 'tailf-ncs:output': { result: false, info: 'Device ce0 is locked' } });
});

test('actions on missing devices, unknown actions and GET on an operation are refused', async () => {
  assert.equal((await json('POST', `${OPS}/device=nope/sync-from`)).status, 404);
  const unknown = await json('POST', `${OPS}/device=ce0/reboot`);
  assert.equal(unknown.status, 404);
  assert.equal(errorTag(unknown.json()), 'invalid-value');
  const get = await json('GET', `${OPS}/device=ce0/sync-from`);
  assert.equal(get.status, 405);
  assert.equal(get.headers.allow, 'POST, OPTIONS');
  assert.equal(errorTag(get.json()), 'operation-not-supported');
  assert.equal((await json('POST', `${OPS}/device=ce0/sync-from?dry-run`)).status, 400);
});
