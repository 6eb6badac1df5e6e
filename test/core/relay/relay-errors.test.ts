/**
 * Every way a relay call fails: unknown or unusable adapters, bodies the
 * interface does not allow, paths that could leave the adapter's base,
 * orchestrator error answers, timeouts and refused connections.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonResponse } from '../../helpers/core.ts';
import type { RelayFixture } from './fixture.ts';
import { NSO, parametersOf, restAction, restQuery, startRelayFixture, TIMEOUT_MS, YANG_JSON } from './fixture.ts';

let f: RelayFixture;
before(async () => {
  f = await startRelayFixture();
});
after(() => f.close());
beforeEach(() => f.sim.reset());

const CE0 = '/restconf/data/tailf-ncs:devices/device=ce0';
const query = { params: { path: CE0, accept: YANG_JSON } };
const action = { params: { path: CE0, accept: YANG_JSON }, body: {} };

interface ErrorBody {
  message: string;
  code: string;
  details: Array<{ parameter: string; message: string; errorTag?: string | null; errorType?: string | null }>;
}

function error(res: JsonResponse, status: number, code: string): ErrorBody {
  assert.equal(res.status, status, JSON.stringify(res.body));
  const body = res.body as ErrorBody;
  assert.equal(body.code, code);
  assert.equal(res.headers.get('x-error-code'), code);
  return body;
}

test('an unknown adapter is a 404 naming it, also when the name has spaces', async () => {
  for (const name of ['nope', 'No Such NSO']) {
    const body = error(await restQuery(f.core, name, query), 404, 'NOT_FOUND');
    assert.match(body.message, new RegExp(`"${name}"`));
    assert.deepEqual(body.details.map((d) => d.parameter), ['adapterId']);
    error(await restAction(f.core, name, action), 404, 'NOT_FOUND');
  }
  assert.equal(f.sim.requests.length, 0);
});

test('a disabled adapter and a gateway adapter are 404 too', async () => {
  assert.match(error(await restQuery(f.core, 'off', query), 404, 'NOT_FOUND').message, /"off" is disabled/);
  assert.match(error(await restAction(f.core, 'ag', action), 404, 'NOT_FOUND').message, /"ag" is a gateway adapter/);
  assert.equal(f.sim.requests.length, 0);
});

test('bodies missing what the interface requires are 400s naming it', async () => {
  const cases: Array<[typeof restQuery, unknown, string]> = [
    [restQuery, {}, 'body.params'],
    [restQuery, { params: 'x' }, 'body.params'],
    [restQuery, { params: { accept: YANG_JSON } }, 'body.params.path'],
    [restQuery, { params: { path: CE0 } }, 'body.params.accept'],
    [restQuery, { params: { path: '', accept: YANG_JSON } }, 'body.params.path'],
    [restAction, { params: { path: CE0, accept: YANG_JSON } }, 'body.body'],
    [restAction, { params: { path: CE0, accept: YANG_JSON }, body: [1] }, 'body.body'],
    [restAction, { params: { path: CE0, accept: YANG_JSON }, body: 'x' }, 'body.body'],
    [restAction, { params: { path: CE0, accept: YANG_JSON, method: 'HEAD' }, body: {} }, 'body.params.method'],
    [restAction, { params: { path: CE0, accept: YANG_JSON, method: 7 }, body: {} }, 'body.params.method'],
    [restAction, { params: { path: CE0, accept: 'json' }, body: {} }, 'body.params.accept'],
    [restAction, { params: { path: CE0, accept: 'application/json\r\nX-Injected: 1' }, body: {} }, 'body.params.accept'],
    [restAction, { params: { path: CE0, accept: YANG_JSON, contentType: 'application/yang-data+xml' }, body: { a: 1 } }, 'body.params.contentType'],
    [restAction, { params: { path: CE0, accept: YANG_JSON, method: 'GET' }, body: { a: 1 } }, 'body.body'],
  ];
  for (const [send, body, parameter] of cases) {
    const res = await send(f.core, NSO, body);
    error(res, 400, 'VALIDATION_FAILED');
    // joi may report two problems with one value (a number is neither a string nor a listed method).
    assert.deepEqual([...new Set(parametersOf(res))], [parameter], JSON.stringify(body));
  }
  assert.equal(f.sim.requests.length, 0);
});

test('an additional property at any level the interface defines is a 400 naming it', async () => {
  const cases: Array<[typeof restQuery, unknown, string]> = [
    [restQuery, { ...query, extra: 1 }, 'body.extra'],
    [restQuery, { params: { ...query.params, extra: 1 } }, 'body.params.extra'],
    // restQuery takes no body; restAction's method and contentType are its own.
    [restQuery, { ...query, body: {} }, 'body.body'],
    [restQuery, { params: { ...query.params, method: 'GET' } }, 'body.params.method'],
    [restQuery, { params: { ...query.params, contentType: YANG_JSON } }, 'body.params.contentType'],
    [restAction, { ...action, extra: 1 }, 'body.extra'],
    [restAction, { ...action, params: { ...action.params, method: 'GET', extra: 1 } }, 'body.params.extra'],
  ];
  for (const [send, body, parameter] of cases) {
    const res = await send(f.core, NSO, body);
    error(res, 400, 'VALIDATION_FAILED');
    assert.deepEqual(parametersOf(res), [parameter], JSON.stringify(body));
  }
  // Inside `body` everything is the orchestrator's business.
  const passed = await restAction(f.core, NSO, { params: { path: `${CE0}/address`, accept: YANG_JSON, method: 'PUT' }, body: { 'tailf-ncs:address': '10.0.0.5' } });
  assert.equal(passed.status, 200, JSON.stringify(passed.body));
});

test('paths that could leave the adapter\'s base are 400s naming params.path, and nothing is sent', async () => {
  const escapes = [
    'http://evil.example/restconf/data',
    'HTTPS://evil.example',
    'mailto:x@example.com',
    '//evil.example/restconf/data',
    'restconf/data',
    '/restconf/../admin',
    '/restconf/data/..',
    '/..',
    '/restconf/%2e%2e/admin',
    '/restconf/%2E%2e/admin',
    '/restconf/.%2e/admin',
    '/restconf/%252e%252e/admin',
    '/restconf/%2e%2e%2fadmin',
    '/restconf\\..\\admin',
    '/restconf/data%5c..',
    '/restconf/data\u0000x',
    '/restconf/data\r\nX-Injected: 1',
    '/restconf/data%0d%0aX-Injected:%201',
    '/restconf/data\u0085',
  ];
  for (const path of escapes) {
    for (const res of [await restQuery(f.core, NSO, { params: { path, accept: YANG_JSON } }), await restAction(f.core, NSO, { params: { path, accept: YANG_JSON }, body: {} })]) {
      error(res, 400, 'VALIDATION_FAILED');
      assert.deepEqual(parametersOf(res), ['body.params.path'], path);
    }
  }
  assert.equal(f.sim.requests.length, 0);
});

test('an orchestrator 4xx answers the same status, naming the adapter and the orchestrator\'s message, its errors in details (JSON)', async () => {
  const body = error(await restQuery(f.core, NSO, { params: { path: '/restconf/data/tailf-ncs:devices/device=nope', accept: YANG_JSON } }), 404, 'UPSTREAM_FAILED');
  assert.match(body.message, /^Adapter "Local NSO" answered 404: uri keypath not found/);
  assert.equal(body.details.length, 1);
  assert.equal(body.details[0]!.errorTag, 'invalid-value');
  assert.equal(body.details[0]!.errorType, 'application');
  assert.match(body.details[0]!.message, /uri keypath not found/);
  const bad = error(await restAction(f.core, NSO, { params: { path: `${CE0}?depth=x`, accept: YANG_JSON, method: 'GET' }, body: {} }), 400, 'UPSTREAM_FAILED');
  assert.match(bad.message, /^Adapter "Local NSO" answered 400: /);
});

test('orchestrator errors in XML (RESTCONF and legacy) are read the same way', async () => {
  const restconf = error(await restQuery(f.core, NSO, { params: { path: '/restconf/data/tailf-ncs:devices/device=nope', accept: 'application/yang-data+xml' } }), 404, 'UPSTREAM_FAILED');
  assert.match(restconf.message, /answered 404: uri keypath not found/);
  assert.equal(restconf.details[0]!.errorTag, 'invalid-value');
  const legacy = error(await restQuery(f.core, NSO, { params: { path: '/api/running/devices/device/nope', accept: 'application/vnd.yang.collection+xml' } }), 404, 'UPSTREAM_FAILED');
  assert.match(legacy.message, /answered 404: uri keypath not found/);
  assert.equal(legacy.details[0]!.errorTag, 'invalid-value');
});

test('an orchestrator 5xx answers the same status; only idempotent methods are retried, twice', async () => {
  f.sim.setFault({ failStatus: 500 });
  const body = error(await restAction(f.core, NSO, action), 500, 'UPSTREAM_FAILED');
  assert.match(body.message, /^Adapter "Local NSO" answered 500: nso-sim fault/);
  assert.equal(body.details[0]!.errorTag, 'operation-failed');
  assert.equal(f.sim.requests.length, 1);

  f.sim.reset();
  f.sim.setFault({ failStatus: 503 });
  error(await restQuery(f.core, NSO, query), 503, 'UPSTREAM_FAILED');
  assert.equal(f.sim.requests.length, 3, 'GET is tried three times');
  const before = f.sim.requests.length;
  error(await restAction(f.core, NSO, { params: { path: `${CE0}/address`, accept: YANG_JSON, method: 'PUT' }, body: { address: 'x' } }), 503, 'UPSTREAM_FAILED');
  assert.equal(f.sim.requests.length - before, 3, 'PUT is tried three times');
  const beforePost = f.sim.requests.length;
  error(await restAction(f.core, NSO, { params: { path: `${CE0}/config`, accept: YANG_JSON, method: 'PATCH' }, body: { a: 1 } }), 503, 'UPSTREAM_FAILED');
  assert.equal(f.sim.requests.length - beforePost, 1, 'PATCH is not retried');
});

test('an orchestrator 401 (the adapter\'s credentials) is a 502, not the caller\'s 401', async () => {
  for (const name of ['wrong password', 'token nso']) {
    const res = await restQuery(f.core, name, query);
    const body = error(res, 502, 'UPSTREAM_FAILED');
    assert.match(body.message, new RegExp(`^Adapter "${name}" was refused by the orchestrator \\(401\\)`));
    assert.equal(res.headers.get('www-authenticate'), null);
  }
});

test('an orchestrator that does not answer in time is a 504 naming the adapter, not retried', async () => {
  f.sim.setFault({ delayMs: TIMEOUT_MS * 3 });
  const started = Date.now();
  const body = error(await restQuery(f.core, NSO, query), 504, 'UPSTREAM_TIMEOUT');
  assert.match(body.message, /^Adapter "Local NSO" did not answer within 400 ms/);
  assert.ok(Date.now() - started < TIMEOUT_MS * 2.5, 'the timeout is the adapter\'s, once');
  assert.equal(f.sim.requests.length, 1);
  error(await restAction(f.core, NSO, action), 504, 'UPSTREAM_TIMEOUT');
});

test('a refused connection is a 502 naming the adapter', async () => {
  f.sim.setFault({ refuse: true });
  assert.match(error(await restQuery(f.core, NSO, query), 502, 'UPSTREAM_FAILED').message, /^Adapter "Local NSO" could not be reached/);
  assert.match(error(await restAction(f.core, NSO, action), 502, 'UPSTREAM_FAILED').message, /^Adapter "Local NSO" could not be reached/);
  f.sim.reset();
  const closed = error(await restAction(f.core, 'closed', action), 502, 'UPSTREAM_FAILED');
  assert.match(closed.message, /^Adapter "closed" could not be reached \(.*ECONNREFUSED/);
  error(await restQuery(f.core, 'closed', query), 502, 'UPSTREAM_FAILED');
});

test('an error answer never shows the adapter\'s credentials', async () => {
  f.sim.setFault({ failStatus: 500 });
  const res = await restQuery(f.core, NSO, query);
  const text = JSON.stringify(res.body);
  assert.ok(!text.includes('relay-secret') && !text.includes('cmVsYXk'), text);
});
