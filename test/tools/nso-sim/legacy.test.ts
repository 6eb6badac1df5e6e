/**
 * nso-sim's legacy NSO REST API (/api) over real HTTP: vnd.yang media types,
 * collections, ?deep, writes over the tree RESTCONF also serves, actions
 * under _operations, and the legacy error form.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNsoSim } from '../../../tools/nso-sim/server.ts';
import type { NsoSim } from '../../../tools/nso-sim/server.ts';
import { assertWellFormedXml, JSON_HEADERS, simCall } from '../../../tools/nso-sim/test-client.ts';

let sim: NsoSim;
const DATA_JSON = 'application/vnd.yang.data+json';
const COLLECTION_JSON = 'application/vnd.yang.collection+json';
const legacy = (method: string, path: string, accept: string | null, body?: object) =>
  simCall(sim.url, method, path, { headers: { ...(accept === null ? {} : { accept }), ...(body === undefined ? {} : { 'content-type': DATA_JSON }) }, ...(body === undefined ? {} : { body }) });

type LegacyErrors = { errors: { error: { 'error-message': string; 'error-urlpath': string; 'error-tag': string }[] } };

before(async () => {
  sim = await startNsoSim({ seed: true });
});
beforeEach(() => sim.reset());
after(() => sim.close());

test('GET /api describes the API', async () => {
  const res = await legacy('GET', '/api', 'application/vnd.yang.api+json');
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'application/vnd.yang.api+json');
  assert.deepEqual(Object.keys((res.json() as { api: object }).api), ['version', 'config', 'running', 'operational', 'operations', 'rollbacks']);
});

test('a whole list is a collection (vnd.yang.collection+json), one level deep unless ?deep', async () => {
  const res = await legacy('GET', '/api/running/devices/device', COLLECTION_JSON);
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], COLLECTION_JSON);
  const devices = (res.json() as { collection: { 'tailf-ncs:device': Record<string, unknown>[] } }).collection['tailf-ncs:device'];
  assert.deepEqual(devices.map((device) => device['name']), ['ce0', 'ce1', 'pe0']);
  assert.deepEqual(devices[0]?.['config'], {}, 'nested containers are shown empty without ?deep');
  const deep = await legacy('GET', '/api/running/devices/device?deep', COLLECTION_JSON);
  const deepDevices = (deep.json() as { collection: { 'tailf-ncs:device': { config: Record<string, unknown> }[] } }).collection['tailf-ncs:device'];
  assert.equal(deepDevices[2]?.config['tailf-ned-cisco-ios-xr:hostname'], 'pe0');
});

test('a single entry is an object under vnd.yang.data+json; ?shallow keeps only its key', async () => {
  const res = await legacy('GET', '/api/running/devices/device/ce1?deep', DATA_JSON);
  assert.equal(res.headers['content-type'], DATA_JSON);
  const device = (res.json() as { 'tailf-ncs:device': { name: string; config: Record<string, unknown> } })['tailf-ncs:device'];
  assert.equal(device.name, 'ce1', 'an object, not a one-entry array');
  assert.equal(device.config['tailf-ned-cisco-ios:hostname'], 'ce1');
  const shallow = await legacy('GET', '/api/running/devices/device/ce1?shallow', DATA_JSON);
  assert.deepEqual(shallow.json(), { 'tailf-ncs:device': { name: 'ce1' } });
  const nested = await legacy('GET', '/api/config/devices/device/ce0/config/ios:interface/Loopback/0?deep', DATA_JSON);
  assert.deepEqual(nested.json(), { 'tailf-ned-cisco-ios:Loopback': { name: '0', ip: { address: { primary: { address: '10.0.0.1', mask: '255.255.255.255' } } } } });
});

test('without an Accept header the answer is XML: vnd.yang.data+xml, or a collection element for lists', async () => {
  const single = await legacy('GET', '/api/running/devices/device/ce0', null);
  assert.equal(single.headers['content-type'], 'application/vnd.yang.data+xml');
  assert.match(single.text, /^<device xmlns="http:\/\/tail-f\.com\/ns\/ncs"><name>ce0<\/name>/);
  assertWellFormedXml(single.text);
  const list = await legacy('GET', '/api/running/devices/device', 'application/vnd.yang.collection+xml');
  assert.equal(list.headers['content-type'], 'application/vnd.yang.collection+xml');
  assert.match(list.text, /^<collection xmlns="http:\/\/tail-f\.com\/ns\/rest"><device xmlns="http:\/\/tail-f\.com\/ns\/ncs"><name>ce0<\/name>/);
  assert.equal(list.text.match(/<device /g)?.length, 3);
  assertWellFormedXml(list.text);
});

test('POST creates (201 with a legacy Location) and the entry is visible through RESTCONF; again is 409', async () => {
  const created = await legacy('POST', '/api/running/devices', DATA_JSON, { device: { name: 'ce9', address: '10.0.0.9' } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers.location, `${sim.url}/api/running/devices/device/ce9`);
  const viaRestconf = await simCall(sim.url, 'GET', '/restconf/data/tailf-ncs:devices/device=ce9/address', { headers: JSON_HEADERS });
  assert.deepEqual(viaRestconf.json(), { 'tailf-ncs:address': '10.0.0.9' });
  const again = await legacy('POST', '/api/running/devices/device', DATA_JSON, { device: { name: 'ce9' } });
  assert.equal(again.status, 409);
  assert.equal((again.json() as LegacyErrors).errors.error[0]?.['error-tag'], 'data-exists');
});

test('PUT creates then replaces, PATCH merges, DELETE removes, over the tree RESTCONF writes too', async () => {
  const path = '/api/running/devices/device/ce8';
  assert.equal((await legacy('PUT', path, DATA_JSON, { 'tailf-ncs:device': { name: 'ce8', address: '1.1.1.1', port: 22 } })).status, 201);
  assert.equal((await legacy('PUT', path, DATA_JSON, { device: { name: 'ce8', address: '2.2.2.2' } })).status, 204);
  assert.equal((await legacy('PATCH', path, DATA_JSON, { device: { port: 830 } })).status, 204);
  assert.deepEqual((await legacy('GET', path, DATA_JSON)).json(), { 'tailf-ncs:device': { name: 'ce8', address: '2.2.2.2', port: 830 } });
  await simCall(sim.url, 'PATCH', '/restconf/data/tailf-ncs:devices/device=ce8', { headers: JSON_HEADERS, body: { device: [{ name: 'ce8', authgroup: 'default' }] } });
  assert.equal(((await legacy('GET', path, DATA_JSON)).json() as { 'tailf-ncs:device': { authgroup: string } })['tailf-ncs:device'].authgroup, 'default');
  assert.equal((await legacy('DELETE', path, DATA_JSON)).status, 204);
  assert.equal((await legacy('GET', path, DATA_JSON)).status, 404);
});

test('errors use the legacy form with the URL path, in JSON and XML', async () => {
  const res = await legacy('GET', '/api/running/devices/device/nope', DATA_JSON);
  assert.equal(res.status, 404);
  assert.equal(res.headers['content-type'], 'application/vnd.yang.errors+json');
  assert.deepEqual(res.json(), { errors: { error: [{ 'error-message': 'uri keypath not found: devices/device=nope', 'error-urlpath': '/api/running/devices/device/nope', 'error-tag': 'invalid-value' }] } });
  const xml = await legacy('PATCH', '/api/running/devices/device/nope', null, { device: {} });
  assert.equal(xml.status, 404);
  assert.match(xml.text, /^<errors xmlns="http:\/\/tail-f\.com\/ns\/tailf-rest-error"><error><error-message>/);
  assertWellFormedXml(xml.text);
});

test('actions run under _operations', async () => {
  const res = await legacy('POST', '/api/running/devices/device/ce0/_operations/sync-from', DATA_JSON);
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { 'tailf-ncs:output': { result: true } });
  assert.equal((await legacy('GET', '/api/running/devices/device/ce0/_operations/sync-from', DATA_JSON)).status, 405);
  assert.equal((await legacy('POST', '/api/running/devices/device/nope/_operations/sync-from', DATA_JSON)).status, 404);
});

test('the operational datastore reads the same tree and refuses writes', async () => {
  const read = await legacy('GET', '/api/operational/devices/device/pe0/address', DATA_JSON);
  assert.deepEqual(read.json(), { 'tailf-ncs:address': '127.0.0.1' });
  const write = await legacy('DELETE', '/api/operational/devices/device/pe0', DATA_JSON);
  assert.equal(write.status, 405);
  assert.equal(write.headers.allow, 'GET, HEAD');
});

test('XML bodies are 415, unknown parameters 400, unknown datastores 404, and auth is required', async () => {
  const xml = await simCall(sim.url, 'PUT', '/api/running/devices/device/ce0', { headers: { accept: DATA_JSON, 'content-type': 'application/vnd.yang.data+xml' }, body: '<device/>' });
  assert.equal(xml.status, 415);
  assert.match((xml.json() as LegacyErrors).errors.error[0]?.['error-message'] ?? '', /XML request bodies are not supported.*vnd\.yang\.data\+json/);
  assert.equal((await legacy('GET', '/api/running/devices?offset=3', DATA_JSON)).status, 400);
  assert.equal((await legacy('GET', '/api/candidate/devices', DATA_JSON)).status, 404);
  const anonymous = await simCall(sim.url, 'GET', '/api/running/devices', { auth: null, headers: { accept: DATA_JSON } });
  assert.equal(anonymous.status, 401);
  assert.ok(anonymous.headers['www-authenticate']);
  assert.equal((anonymous.json() as LegacyErrors).errors.error[0]?.['error-tag'], 'access-denied');
});
