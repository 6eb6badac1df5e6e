/**
 * restAction and restQuery over real HTTP, through the core, to the
 * orchestrator stand-in: every media type the platform's clients use, every
 * method, and what reaches the orchestrator.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RelayFixture } from './fixture.ts';
import { NSO, NSO_PASSWORD, NSO_USER, restAction, restQuery, startRelayFixture, YANG_JSON } from './fixture.ts';

let f: RelayFixture;
before(async () => {
  f = await startRelayFixture();
});
after(() => f.close());
beforeEach(() => f.sim.reset());

const CE0 = '/restconf/data/tailf-ncs:devices/device=ce0';
const basic = `Basic ${Buffer.from(`${NSO_USER}:${NSO_PASSWORD}`).toString('base64')}`;

function lastRequest(): { method: string; path: string; headers: Record<string, string | string[] | undefined>; body: string } {
  const last = f.sim.requests[f.sim.requests.length - 1];
  assert.ok(last, 'the orchestrator received no request');
  return last;
}

type Device = { name: string; address: string; config: Record<string, unknown> };

test('restQuery (RESTCONF, application/yang-data+json) answers instance_data and sends GET with Accept and Basic credentials', async () => {
  const res = await restQuery(f.core, NSO, { params: { path: CE0, accept: YANG_JSON } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const data = (res.body as { instance_data: Record<string, Device[]> }).instance_data;
  assert.deepEqual(Object.keys(res.body as object), ['instance_data']);
  assert.equal(data['tailf-ncs:device']![0]!.name, 'ce0');
  const sent = lastRequest();
  assert.equal(sent.method, 'GET');
  assert.equal(sent.path, CE0);
  assert.equal(sent.headers['accept'], YANG_JSON);
  assert.equal(sent.headers['authorization'], basic);
  assert.equal(sent.headers['content-type'], undefined);
  assert.equal(sent.body, '');
});

test('restQuery passes the path\'s own query text through', async () => {
  const res = await restQuery(f.core, NSO, { params: { path: `${CE0}?fields=name;address&depth=2`, accept: YANG_JSON } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual((res.body as { instance_data: unknown }).instance_data, { 'tailf-ncs:device': [{ name: 'ce0', address: '127.0.0.1' }] });
  assert.equal(lastRequest().path, `${CE0}?fields=name;address&depth=2`);
});

test('restQuery (legacy REST, application/vnd.yang.data+json) answers the resource', async () => {
  const res = await restQuery(f.core, NSO, { params: { path: '/api/running/devices/device/ce1', accept: 'application/vnd.yang.data+json' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const data = (res.body as { instance_data: Record<string, { name: string }> }).instance_data;
  const device = Object.values(data)[0]!;
  assert.equal(device.name, 'ce1');
  assert.equal(lastRequest().headers['accept'], 'application/vnd.yang.data+json');
});

test('restQuery (legacy REST, application/vnd.yang.collection+json) answers the whole list', async () => {
  const res = await restQuery(f.core, NSO, { params: { path: '/api/running/devices/device?deep', accept: 'application/vnd.yang.collection+json' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const collection = (res.body as { instance_data: { collection: Record<string, Device[]> } }).instance_data.collection;
  assert.deepEqual(Object.values(collection)[0]!.map((d) => d.name), ['ce0', 'ce1', 'pe0']);
  assert.equal(lastRequest().path, '/api/running/devices/device?deep');
});

test('restQuery (application/vnd.yang.collection+xml) passes the XML answer on as text', async () => {
  const res = await restQuery(f.core, NSO, { params: { path: '/api/running/devices/device', accept: 'application/vnd.yang.collection+xml' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const xml = (res.body as { instance_data: unknown }).instance_data;
  assert.equal(typeof xml, 'string');
  assert.match(xml as string, /^<collection[\s>]/);
  assert.match(xml as string, /<name>pe0<\/name>/);
});

test('restAction GET answers the status and the orchestrator\'s data in the same element', async () => {
  const res = await restAction(f.core, NSO, { params: { path: `${CE0}/address`, accept: YANG_JSON, method: 'GET' }, body: {} });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, [{ result: '200', data: { 'tailf-ncs:address': '127.0.0.1' } }]);
  assert.equal(lastRequest().method, 'GET');
});

test('restAction PATCH (method in any case) sends the body as JSON with the default content type; the change reads back', async () => {
  const loopback = { config: { 'tailf-ned-cisco-ios:interface': { Loopback: [{ name: '1', ip: { address: { primary: { address: '127.0.0.1', mask: '255.0.0.0' } } } }] } } };
  const res = await restAction(f.core, NSO, { params: { path: `${CE0}/config`, accept: YANG_JSON, method: 'patch' }, body: loopback });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, [{ result: '204' }]);
  const sent = lastRequest();
  assert.equal(sent.method, 'PATCH');
  assert.equal(sent.headers['content-type'], YANG_JSON);
  assert.deepEqual(JSON.parse(sent.body), loopback);
  const back = await restQuery(f.core, NSO, { params: { path: `${CE0}/config/tailf-ned-cisco-ios:interface/Loopback=1`, accept: YANG_JSON } });
  assert.equal(back.status, 200, JSON.stringify(back.body));
  assert.deepEqual(back.body, { instance_data: { 'tailf-ned-cisco-ios:Loopback': [loopback.config['tailf-ned-cisco-ios:interface'].Loopback[0]] } });
});

test('restAction POST (the default method) creates data and answers 201', async () => {
  const res = await restAction(f.core, NSO, { params: { path: '/restconf/data/tailf-ncs:devices', accept: YANG_JSON }, body: { 'tailf-ncs:device': [{ name: 'ce9', address: '10.0.0.9' }] } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, [{ result: '201' }]);
  assert.equal(lastRequest().method, 'POST');
  const back = await restQuery(f.core, NSO, { params: { path: '/restconf/data/tailf-ncs:devices/device=ce9/address', accept: YANG_JSON } });
  assert.deepEqual(back.body, { instance_data: { 'tailf-ncs:address': '10.0.0.9' } });
});

test('restAction POST of an action answers its output; an empty body is sent as no body', async () => {
  const res = await restAction(f.core, NSO, { params: { path: `${CE0}/sync-from`, accept: YANG_JSON }, body: {} });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, [{ result: '200', data: { 'tailf-ncs:output': { result: true } } }]);
  const sent = lastRequest();
  assert.equal(sent.body, '');
  assert.equal(sent.headers['content-type'], undefined);
});

test('restAction PUT replaces a leaf and DELETE removes it', async () => {
  const put = await restAction(f.core, NSO, { params: { path: `${CE0}/address`, accept: YANG_JSON, method: 'PUT', contentType: YANG_JSON }, body: { 'tailf-ncs:address': '10.1.1.1' } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body, [{ result: '204' }]);
  assert.equal(lastRequest().method, 'PUT');
  const del = await restAction(f.core, NSO, { params: { path: `${CE0}/config/tailf-ned-cisco-ios:hostname`, accept: YANG_JSON, method: 'DELETE' }, body: {} });
  assert.deepEqual(del.body, [{ result: '204' }]);
  assert.equal(lastRequest().method, 'DELETE');
  const gone = await restQuery(f.core, NSO, { params: { path: `${CE0}/config/tailf-ned-cisco-ios:hostname`, accept: YANG_JSON } });
  assert.equal(gone.status, 404);
  const address = await restQuery(f.core, NSO, { params: { path: `${CE0}/address`, accept: YANG_JSON } });
  assert.deepEqual(address.body, { instance_data: { 'tailf-ncs:address': '10.1.1.1' } });
});

test('restAction to the legacy REST API with contentType application/vnd.yang.data+json', async () => {
  const res = await restAction(f.core, NSO, {
    params: { path: '/api/running/devices/device/ce1', accept: 'application/vnd.yang.data+json', method: 'PATCH', contentType: 'application/vnd.yang.data+json' },
    body: { 'tailf-ncs:device': { address: '10.2.2.2' } },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, [{ result: '204' }]);
  assert.equal(lastRequest().headers['content-type'], 'application/vnd.yang.data+json');
  const back = await restQuery(f.core, NSO, { params: { path: '/restconf/data/tailf-ncs:devices/device=ce1/address', accept: YANG_JSON } });
  assert.deepEqual(back.body, { instance_data: { 'tailf-ncs:address': '10.2.2.2' } });
});

test('a write asked for its rollback id answers 200 with the data', async () => {
  const res = await restAction(f.core, NSO, { params: { path: `${CE0}/address?rollback-id=true`, accept: YANG_JSON, method: 'PUT' }, body: { 'tailf-ncs:address': '10.3.3.3' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [first] = res.body as Array<{ result: string; data: { 'tailf-restconf:result': { rollback: { id: number } } } }>;
  assert.equal(first!.result, '200');
  assert.equal(typeof first!.data['tailf-restconf:result'].rollback.id, 'number');
});

test('an adapter whose base URL has a path keeps it in front of the relayed path', async () => {
  const res = await restQuery(f.core, 'restconf base', { params: { path: '/data/tailf-ncs:devices/device=ce1/name', accept: YANG_JSON } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, { instance_data: { 'tailf-ncs:name': 'ce1' } });
  assert.equal(lastRequest().path, '/restconf/data/tailf-ncs:devices/device=ce1/name');
});

test('a token adapter sends Bearer credentials', async () => {
  await restQuery(f.core, 'token nso', { params: { path: CE0, accept: YANG_JSON } });
  assert.equal(lastRequest().headers['authorization'], 'Bearer tok-123');
});
