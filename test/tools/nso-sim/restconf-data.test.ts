/**
 * nso-sim's RESTCONF data resources over real HTTP: discovery, Basic auth,
 * every method with its statuses, both media types and the XML default, and
 * RFC 8040 error bodies in both forms.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNsoSim } from '../../../tools/nso-sim/server.ts';
import type { NsoSim } from '../../../tools/nso-sim/server.ts';
import { assertWellFormedXml, JSON_HEADERS, JSON_TYPE, simCall, XML_TYPE } from '../../../tools/nso-sim/test-client.ts';
import type { SimCallOptions } from '../../../tools/nso-sim/test-client.ts';

let sim: NsoSim;
const AUTH = 'nso:s3cret';
const call = (method: string, path: string, options: SimCallOptions = {}) => simCall(sim.url, method, path, { auth: AUTH, ...options });
const json = (method: string, path: string, body?: object) => call(method, path, { headers: JSON_HEADERS, ...(body === undefined ? {} : { body }) });
const DEVICES = '/restconf/data/tailf-ncs:devices';

type Errors = { 'ietf-restconf:errors': { error: { 'error-type': string; 'error-tag': string; 'error-message': string }[] } };
const firstError = (body: unknown) => (body as Errors)['ietf-restconf:errors'].error[0];

before(async () => {
  sim = await startNsoSim({ username: 'nso', password: 's3cret', seed: true });
});
beforeEach(() => sim.reset());
after(() => sim.close());

test('GET /.well-known/host-meta answers an XRD whose restconf link is /restconf', async () => {
  const res = await call('GET', '/.well-known/host-meta');
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'application/xrd+xml');
  assert.match(res.text, /<Link rel="restconf" href="\/restconf"\/>/);
  assertWellFormedXml(res.text);
});

test('GET /restconf answers the root resource in JSON or XML', async () => {
  const asJson = await call('GET', '/restconf', { headers: { accept: JSON_TYPE } });
  assert.equal(asJson.status, 200);
  assert.deepEqual(asJson.json(), { 'ietf-restconf:restconf': { data: {}, operations: {}, 'yang-library-version': '2019-01-04' } });
  const asXml = await call('GET', '/restconf');
  assert.equal(asXml.headers['content-type'], XML_TYPE);
  assert.match(asXml.text, /^<restconf xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf"><data\/><operations\/>/);
});

test('without credentials, or with wrong ones, the answer is 401 with WWW-Authenticate and an errors body', async () => {
  for (const auth of [null, 'nso:wrong', 'admin:admin']) {
    const res = await call('GET', `${DEVICES}/device=ce0`, { auth, headers: { accept: JSON_TYPE } });
    assert.equal(res.status, 401, String(auth));
    assert.match(String(res.headers['www-authenticate']), /^Basic realm=/);
    assert.equal(firstError(res.json())?.['error-tag'], 'access-denied');
  }
  const ok = await call('GET', `${DEVICES}/device=ce0`);
  assert.equal(ok.status, 200, 'the configured username and password are accepted');
});

test('GET of a list entry answers the list with that one entry, as application/yang-data+json', async () => {
  const res = await json('GET', `${DEVICES}/device=ce0`);
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], JSON_TYPE);
  const body = res.json() as { 'tailf-ncs:device': { name: string; config: Record<string, unknown> }[] };
  assert.equal(body['tailf-ncs:device'].length, 1);
  assert.equal(body['tailf-ncs:device'][0]?.name, 'ce0');
  assert.equal(body['tailf-ncs:device'][0]?.config['tailf-ned-cisco-ios:hostname'], 'ce0');
});

test('GET of a nested container and of a leaf name the node module-qualified', async () => {
  const config = await json('GET', `${DEVICES}/device=pe0/config`);
  assert.equal((config.json() as Record<string, Record<string, unknown>>)['tailf-ncs:config']?.['tailf-ned-cisco-ios-xr:hostname'], 'pe0');
  const leaf = await json('GET', `${DEVICES}/device=ce1/address`);
  assert.deepEqual(leaf.json(), { 'tailf-ncs:address': '127.0.0.1' });
  const nedLeaf = await json('GET', `${DEVICES}/device=ce1/config/tailf-ned-cisco-ios:hostname`);
  assert.deepEqual(nedLeaf.json(), { 'tailf-ned-cisco-ios:hostname': 'ce1' });
});

test('without an Accept header, and for */*, the answer is XML with namespaces where the module changes', async () => {
  const variants: Record<string, string>[] = [{}, { accept: '*/*' }, { accept: XML_TYPE }];
  for (const headers of variants) {
    const res = await call('GET', `${DEVICES}/device=ce0/config`, { headers });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], XML_TYPE, JSON.stringify(headers));
    assert.match(res.text, /^<config xmlns="http:\/\/tail-f\.com\/ns\/ncs"><hostname xmlns="urn:ios">ce0<\/hostname>/);
    assertWellFormedXml(res.text);
  }
  const whole = await call('GET', '/restconf/data');
  assert.match(whole.text, /^<data xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf"><devices xmlns="http:\/\/tail-f\.com\/ns\/ncs">/);
  assertWellFormedXml(whole.text);
});

test('Accept is negotiated by q-value, and an Accept naming nothing served is 406', async () => {
  const preferred = await call('GET', `${DEVICES}/device=ce0/address`, { headers: { accept: `${XML_TYPE};q=0.5, ${JSON_TYPE}` } });
  assert.equal(preferred.headers['content-type'], JSON_TYPE);
  const refused = await call('GET', `${DEVICES}/device=ce0/address`, { headers: { accept: 'text/html' } });
  assert.equal(refused.status, 406);
  assert.match(refused.text, /<error-tag>invalid-value<\/error-tag>/);
});

test('GET of a missing resource is 404 with an RFC 8040 errors body, in JSON and in XML', async () => {
  const asJson = await json('GET', `${DEVICES}/device=nope`);
  assert.equal(asJson.status, 404);
  assert.deepEqual(Object.keys(asJson.json() as object), ['ietf-restconf:errors']);
  assert.deepEqual(firstError(asJson.json()), { 'error-type': 'application', 'error-tag': 'invalid-value', 'error-message': 'uri keypath not found: tailf-ncs:devices/device=nope' });
  const asXml = await call('GET', `${DEVICES}/device=nope`);
  assert.equal(asXml.status, 404);
  assert.equal(asXml.headers['content-type'], XML_TYPE);
  assert.match(asXml.text, /^<errors xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf"><error><error-type>application<\/error-type><error-tag>invalid-value<\/error-tag>/);
  assertWellFormedXml(asXml.text);
});

test('POST creates a child: 201 with Location, then 409 data-exists for the same entry', async () => {
  const created = await json('POST', DEVICES, { 'tailf-ncs:device': [{ name: 'ce9', address: '10.0.0.9' }] });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers.location, `${sim.url}${DEVICES}/device=ce9`);
  const read = await json('GET', new URL(String(created.headers.location)).pathname);
  assert.equal((read.json() as { 'tailf-ncs:device': { address: string }[] })['tailf-ncs:device'][0]?.address, '10.0.0.9');
  const again = await json('POST', DEVICES, { device: { name: 'ce9' } });
  assert.equal(again.status, 409);
  assert.equal(firstError(again.json())?.['error-tag'], 'data-exists');
});

test('POST of a container that exists is 409; POST under a missing parent is 404', async () => {
  const exists = await json('POST', `${DEVICES}/device=ce0`, { config: {} });
  assert.equal(exists.status, 409);
  const missing = await json('POST', `${DEVICES}/device=nope`, { config: {} });
  assert.equal(missing.status, 404);
});

test('PUT creates (201), then replaces (204) the whole resource', async () => {
  const path = `${DEVICES}/device=ce7`;
  const created = await json('PUT', path, { 'tailf-ncs:device': [{ name: 'ce7', address: '10.0.0.7', port: 22 }] });
  assert.equal(created.status, 201, created.text);
  const replaced = await json('PUT', path, { 'tailf-ncs:device': [{ name: 'ce7', address: '10.0.0.70' }] });
  assert.equal(replaced.status, 204);
  assert.equal(replaced.text, '');
  assert.deepEqual((await json('GET', path)).json(), { 'tailf-ncs:device': [{ name: 'ce7', address: '10.0.0.70' }] }, 'port is gone: PUT replaces');
});

test('PUT whose body key contradicts the URI, or names another node, is 400', async () => {
  const wrongKey = await json('PUT', `${DEVICES}/device=ce0`, { device: [{ name: 'ce1' }] });
  assert.equal(wrongKey.status, 400);
  assert.match(firstError(wrongKey.json())?.['error-message'] ?? '', /key leaf name/);
  const wrongNode = await json('PUT', `${DEVICES}/device=ce0/config`, { state: {} });
  assert.equal(wrongNode.status, 400);
});

test('PATCH merges into the target (204) and is 404 when it is missing', async () => {
  const path = `${DEVICES}/device=ce0/config`;
  const patched = await json('PATCH', path, { 'tailf-ncs:config': { 'tailf-ned-cisco-ios:interface': { Loopback: [{ name: '1', description: 'added' }] } } });
  assert.equal(patched.status, 204, patched.text);
  const loopbacks = (await json('GET', `${path}/tailf-ned-cisco-ios:interface/Loopback`)).json() as { 'tailf-ned-cisco-ios:Loopback': { name: string }[] };
  assert.deepEqual(loopbacks['tailf-ned-cisco-ios:Loopback'].map((entry) => entry.name), ['0', '1'], 'the existing entry stays, the new one is added');
  const hostname = await json('GET', `${path}/tailf-ned-cisco-ios:hostname`);
  assert.equal(hostname.status, 200, 'members the patch did not name are kept');
  const missing = await json('PATCH', `${DEVICES}/device=nope`, { device: [{ name: 'nope', address: 'x' }] });
  assert.equal(missing.status, 404);
});

test('DELETE answers 204, and 404 for what is already gone', async () => {
  const path = `${DEVICES}/device=ce1`;
  assert.equal((await json('DELETE', path)).status, 204);
  assert.equal((await json('GET', path)).status, 404);
  assert.equal((await json('DELETE', path)).status, 404);
  assert.equal((await json('DELETE', '/restconf/data')).status, 405);
});

test('tailf-ncs:services takes free-form service data', async () => {
  const path = '/restconf/data/tailf-ncs:services/l3vpn:vpn=blue';
  const created = await json('PUT', path, { 'l3vpn:vpn': [{ name: 'blue', endpoint: [{ id: 'a', device: 'ce0' }] }] });
  assert.equal(created.status, 201, created.text);
  const services = (await json('GET', '/restconf/data/tailf-ncs:services')).json();
  assert.deepEqual(services, { 'tailf-ncs:services': { 'l3vpn:vpn': [{ name: 'blue', endpoint: [{ id: 'a', device: 'ce0' }] }] } });
  const xml = await call('GET', path);
  assert.match(xml.text, /^<vpn xmlns="urn:nso-sim:l3vpn"><name>blue<\/name>/);
});

test('request bodies: XML is 415, bad JSON is 400 malformed-message, both with errors bodies', async () => {
  const xmlBody = await call('PUT', `${DEVICES}/device=ce0`, { headers: { accept: JSON_TYPE, 'content-type': XML_TYPE }, body: '<device/>' });
  assert.equal(xmlBody.status, 415);
  assert.match(firstError(xmlBody.json())?.['error-message'] ?? '', /XML request bodies are not supported/);
  const badJson = await call('PATCH', `${DEVICES}/device=ce0`, { headers: JSON_HEADERS, body: '{"device": [' });
  assert.equal(badJson.status, 400);
  assert.equal(firstError(badJson.json())?.['error-tag'], 'malformed-message');
  const unqualified = await json('GET', '/restconf/data/devices');
  assert.equal(unqualified.status, 400, 'RFC 8040: the first segment is module-qualified');
});

test('HEAD answers headers only; OPTIONS lists the methods; other methods are 405', async () => {
  const head = await call('HEAD', `${DEVICES}/device=ce0`, { headers: { accept: JSON_TYPE } });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.ok(Number(head.headers['content-length']) > 0);
  const options = await call('OPTIONS', `${DEVICES}/device=ce0`);
  assert.equal(options.headers.allow, 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE');
  const put = await json('PUT', '/restconf', {});
  assert.equal(put.status, 405);
  assert.equal(put.headers.allow, 'GET, HEAD, OPTIONS');
});
