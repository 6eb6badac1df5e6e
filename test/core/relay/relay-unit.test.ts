/** The relay's parts without HTTP: path rules, joining, reading orchestrator errors, and `call` as the engine uses it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Adapter, AdapterRegistry } from '../../../core/src/adapters/registry.ts';
import { displayUrl } from '../../../core/src/adapters/registry.ts';
import { AppError } from '../../../kernel/errors.ts';
import type { OutgoingRequest } from '../../../core/src/relay/orchestrator.ts';
import { joinPath, pathProblem } from '../../../core/src/relay/path.ts';
import { createRelay } from '../../../core/src/relay/relay.ts';
import { orchestratorErrors } from '../../../core/src/relay/restconf-errors.ts';

test('ordinary orchestrator paths are accepted, query text and UTF-8 included', () => {
  for (const path of [
    '/restconf/data/tailf-ncs:devices/device=C-IOS1/config',
    '/restconf/data/tailf-ncs:devices?depth=2&fields=device/name',
    '/restconf/data/x?filter=a..b',
    '/restconf/data/tailf-ncs:devices/device=caf%C3%A9',
    '/restconf/data/tailf-ncs:devices/device=%C3%80',
    '/restconf/data/tailf-ncs:devices/device=a b',
    '/api/running/devices/device/ce0?deep',
    '/restconf/data/a...b/.x/x.',
  ]) {
    assert.equal(pathProblem(path), null, path);
  }
});

test('path problems say what is wrong', () => {
  assert.match(pathProblem('http://x')!, /absolute URL/);
  assert.match(pathProblem('//x')!, /scheme-relative/);
  assert.match(pathProblem('x/y')!, /must start with \//);
  assert.match(pathProblem('/a/%2E./b')!, /\.\. segment/);
  assert.match(pathProblem('/a/%25%32%65%25%32%65/b')!, /\.\. segment/);
  assert.match(pathProblem('/a%255cb')!, /backslashes/);
  assert.match(pathProblem('/a%2500')!, /control characters/);
});

test('joinPath keeps the base path in front and drops user information', () => {
  assert.equal(joinPath('http://nso:8080', '/restconf/data')!.toString(), 'http://nso:8080/restconf/data');
  assert.equal(joinPath('http://nso:8080/', '/restconf/data?depth=1')!.toString(), 'http://nso:8080/restconf/data?depth=1');
  assert.equal(joinPath('https://nso/base/', '/restconf')!.toString(), 'https://nso/base/restconf');
  assert.equal(joinPath('http://u:p@nso:8080', '/x')!.toString(), 'http://nso:8080/x');
  assert.equal(joinPath('http://nso/base', '/../x'), null);
  assert.equal(displayUrl('http://u:p@nso:8080/x'), 'http://nso:8080/x');
  assert.equal(displayUrl('http://nso:8080'), 'http://nso:8080');
});

test('orchestrator errors are read from RESTCONF JSON, legacy JSON and XML', () => {
  const restconf = { 'ietf-restconf:errors': { error: [{ 'error-type': 'application', 'error-tag': 'data-exists', 'error-path': '/tailf-ncs:devices/device[name="ce0"]', 'error-message': 'object already exists' }] } };
  assert.deepEqual(orchestratorErrors(restconf), [
    { parameter: '/tailf-ncs:devices/device[name="ce0"]', message: 'object already exists', errorType: 'application', errorTag: 'data-exists', errorPath: '/tailf-ncs:devices/device[name="ce0"]' },
  ]);
  assert.deepEqual(orchestratorErrors({ errors: { error: { 'error-tag': 'malformed-message', 'error-message': 'bad' } } }), [
    { parameter: 'malformed-message', message: 'bad', errorType: null, errorTag: 'malformed-message', errorPath: null },
  ]);
  const xml = '<?xml version="1.0"?><rc:errors xmlns:rc="urn:ietf:params:xml:ns:yang:ietf-restconf"><rc:error><rc:error-type>protocol</rc:error-type><rc:error-tag>access-denied</rc:error-tag><rc:error-message>no &amp; never &lt;x&gt; &#65;</rc:error-message></rc:error></rc:errors>';
  assert.deepEqual(orchestratorErrors(xml), [{ parameter: 'access-denied', message: 'no & never <x> A', errorType: 'protocol', errorTag: 'access-denied', errorPath: null }]);
  assert.deepEqual(orchestratorErrors('plain text'), []);
  assert.deepEqual(orchestratorErrors({ data: 1 }), []);
  assert.deepEqual(orchestratorErrors(undefined), []);
});

const adapter: Adapter = { name: 'Local NSO', type: 'nso', baseUrl: 'http://nso:8080', credentials: null, timeoutMs: 1000, tls: { rejectUnauthorized: true, ca: null }, enabled: true, source: 'config' };
const registry: AdapterRegistry = { find: async (name) => (name === adapter.name ? adapter : null), list: async () => [adapter] };

function fakeRelay(status: number, data: unknown): { relay: ReturnType<typeof createRelay>; sent: OutgoingRequest[] } {
  const sent: OutgoingRequest[] = [];
  const relay = createRelay({ registry, client: { send: async (_a, request) => (sent.push(request), { status, data }) } });
  return { relay, sent };
}

async function rejectsWith(promise: Promise<unknown>, status: number, parameter: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.status, status);
    assert.ok(err.details.some((d) => d.parameter === parameter), JSON.stringify(err.details));
    return true;
  });
}

test('call validates like the routes and rejects with their errors', async () => {
  const { relay, sent } = fakeRelay(200, { x: 1 });
  await rejectsWith(relay.call('restQuery', 'Local NSO', { params: { path: '/a/../b', accept: 'application/yang-data+json' } }), 400, 'body.params.path');
  await rejectsWith(relay.call('restAction', 'Local NSO', { params: { path: '/a', accept: 'application/yang-data+json' } }), 400, 'body.body');
  await rejectsWith(relay.call('restAction', 'Local NSO', { params: { path: '/a', accept: 'application/yang-data+json', extra: 1 }, body: {} }), 400, 'body.params.extra');
  await rejectsWith(relay.call('restQuery', 'nope', { params: { path: '/a', accept: 'application/yang-data+json' } }), 404, 'adapterId');
  assert.equal(sent.length, 0);
  assert.deepEqual(await relay.call('restQuery', 'Local NSO', { params: { path: '/a', accept: 'application/yang-data+json' } }), { instance_data: { x: 1 } });
  assert.deepEqual(await relay.call('restAction', 'Local NSO', { params: { path: '/a', accept: 'application/yang-data+json', method: 'delete' }, body: {} }), [{ result: '200', data: { x: 1 } }]);
  assert.deepEqual(sent.map((r) => [r.method, r.url.toString(), r.body]), [
    ['GET', 'http://nso:8080/a', null],
    ['DELETE', 'http://nso:8080/a', null],
  ]);
});

test('restAction sends a non-empty body as JSON, with the content type asked for or the default', async () => {
  const { relay, sent } = fakeRelay(204, undefined);
  assert.deepEqual(await relay.call('restAction', 'Local NSO', { params: { path: '/a', accept: 'application/yang-data+json' }, body: { a: 1 } }), [{ result: '204' }]);
  await relay.call('restAction', 'Local NSO', { params: { path: '/a', accept: 'application/vnd.yang.data+json', contentType: 'application/vnd.yang.data+json; charset=utf-8', method: 'PUT' }, body: { a: 2 } });
  assert.deepEqual(sent.map((r) => [r.method, r.contentType, r.body]), [
    ['POST', 'application/yang-data+json', '{"a":1}'],
    ['PUT', 'application/vnd.yang.data+json; charset=utf-8', '{"a":2}'],
  ]);
  assert.deepEqual(await fakeRelay(204, undefined).relay.call('restQuery', 'Local NSO', { params: { path: '/a', accept: 'application/yang-data+json' } }), { instance_data: null });
});

test('an orchestrator redirect is not followed: 502', async () => {
  const { relay } = fakeRelay(302, undefined);
  await assert.rejects(relay.call('restQuery', 'Local NSO', { params: { path: '/a', accept: 'application/yang-data+json' } }), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.status, 502);
    assert.match(err.message, /^Adapter "Local NSO" answered with a redirect \(302\)/);
    return true;
  });
});
