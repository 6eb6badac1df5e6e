/** The gateway passes new calls straight through to the core, and says so quickly when the core is gone. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createGatewayApp } from '../../gateway/src/app.ts';
import { listen } from '../../kernel/http/listen.ts';
import { createLogger } from '../../kernel/logger.ts';
import type { Store } from '../../kernel/store/types.ts';
import { GATEWAY_COLLECTIONS } from '../../gateway/src/audit/collection.ts';
import { openTestStore } from '../helpers/stores.ts';
import { jobs } from '../fixtures/search-data.ts';
import { request, startCore, testConfig } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { nextTurn } from '../helpers/wait.ts';

let store: Store;
let core: RunningCore;
let gatewayUrl: string;
let server: Server;
let closeProxy: () => void;

before(async () => {
  store = await openTestStore();
  await store.collection('jobs').insertMany(jobs);
  core = await startCore(store);
  const config = await testConfig({ CORE_URL: core.url });
  const gateway = createGatewayApp({ config, logger: createLogger({ level: 'error', service: 'gateway', silent: true }), store: (await openTestStore({ collections: GATEWAY_COLLECTIONS })) });
  closeProxy = () => void gateway.close();
  server = await listen(gateway.app, 0, '127.0.0.1');
  gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  closeProxy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await core.close();
  await store.close();
});

test('a search through the gateway answers exactly what the core answers', async () => {
  const path = '/operations-manager/jobs?in[status]=running,paused&include=name,status';
  const direct = await core.request(path);
  const viaGateway = await request(`${gatewayUrl}${path}`, { headers: { authorization: `Bearer ${core.adminToken}` } });
  assert.equal(viaGateway.status, 200);
  assert.deepEqual(viaGateway.body, direct.body);
});

test('the request id given by the caller reaches the core and comes back', async () => {
  const res = await fetch(`${gatewayUrl}/operations-manager/jobs?limit=1`, { headers: { 'X-Request-Id': 'trace-123', authorization: `Bearer ${core.adminToken}` } });
  await res.text();
  assert.equal(res.headers.get('x-request-id'), 'trace-123');
  assert.ok(core.logs.some((line) => line.includes('"requestId":"trace-123"')));
});

test('a call without a request id gets one, the same on the call to the core and on the answer', async () => {
  const res = await fetch(`${gatewayUrl}/operations-manager/jobs?limit=1`, { headers: { authorization: `Bearer ${core.adminToken}` } });
  await res.text();
  const id = res.headers.get('x-request-id');
  assert.match(id ?? '', /^[0-9a-f-]{36}$/);
  assert.ok(core.logs.some((line) => line.includes(`"requestId":"${id}"`)), 'the core logged the same id');
});

test('a /gateway/ path the gateway does not serve is the core\'s to answer, in its shape', async () => {
  const res = await request(`${gatewayUrl}/gateway/no-such-thing`, { headers: { authorization: `Bearer ${core.adminToken}` } });
  assert.equal(res.status, 404);
  assert.deepEqual(res.body, { message: 'No operation at GET /gateway/no-such-thing', code: 'NOT_FOUND', details: [] });
  const live = await request(`${gatewayUrl}/gateway/health/live`);
  assert.deepEqual([live.status, live.body], [200, { status: 'ok' }], 'while its own routes answer themselves');
});

test('without credentials the core\'s 401 passes through unchanged', async () => {
  const res = await request(`${gatewayUrl}/operations-manager/jobs`);
  assert.equal(res.status, 401);
  assert.deepEqual(res.body, { message: 'Authentication is required', data: null, metadata: {} });
});

test('a core error passes through with its status and envelope', async () => {
  const res = await request(`${gatewayUrl}/operations-manager/jobs?sort=name`, { headers: { authorization: `Bearer ${core.adminToken}` } });
  assert.equal(res.status, 400);
  assert.equal((res.body as { data: unknown }).data, null);
});

test('with the core unreachable the gateway answers 502 in the envelope, quickly', async () => {
  const config = await testConfig({ CORE_URL: 'http://127.0.0.1:9' });
  const gateway = createGatewayApp({ config, logger: createLogger({ level: 'error', service: 'gateway', silent: true }), store: (await openTestStore({ collections: GATEWAY_COLLECTIONS })) });
  const s = await listen(gateway.app, 0, '127.0.0.1');
  try {
    const started = Date.now();
    const res = await request(`http://127.0.0.1:${(s.address() as AddressInfo).port}/operations-manager/jobs`);
    assert.equal(res.status, 502);
    assert.deepEqual(res.body, { message: 'The core service is not reachable; try again shortly', data: null, metadata: {} });
    assert.ok(Date.now() - started < 1000);
  } finally {
    await gateway.close();
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

test('a core that accepts but never answers gets a 504 in the envelope after the timeout', async () => {
  const { createServer } = await import('node:net');
  // A socket that swallows requests: what a hung core looks like from outside.
  const blackHole = createServer(() => undefined);
  await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', () => r()));
  const port = (blackHole.address() as AddressInfo).port;
  const config = await testConfig({ CORE_URL: `http://127.0.0.1:${port}`, GATEWAY_TIMEOUT_MS: '300' });
  const gateway = createGatewayApp({ config, logger: createLogger({ level: 'error', service: 'gateway', silent: true }), store: (await openTestStore({ collections: GATEWAY_COLLECTIONS })) });
  const s = await listen(gateway.app, 0, '127.0.0.1');
  try {
    const started = Date.now();
    const res = await request(`http://127.0.0.1:${(s.address() as AddressInfo).port}/operations-manager/jobs`);
    assert.equal(res.status, 504);
    assert.deepEqual(res.body, { message: 'The core service did not answer in time; try again shortly', data: null, metadata: {} });
    assert.ok(Date.now() - started < 2000);
  } finally {
    await gateway.close();
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
    blackHole.close();
  }
});

test('a caller that hangs up before the core answers drops the call to the core and is not logged as a core failure', async () => {
  const { createServer, connect } = await import('node:net');
  const { PassThrough } = await import('node:stream');
  let upstreamClosed!: () => void;
  const closed = new Promise<void>((r) => (upstreamClosed = r));
  let upstreamReached!: () => void;
  const reached = new Promise<void>((r) => (upstreamReached = r));
  // A core that takes the request and never answers, and tells us when it has it and when the gateway lets go of it.
  const slowCore = createServer((socket) => socket.once('data', () => upstreamReached()).resume().once('close', () => upstreamClosed()));
  await new Promise<void>((r) => slowCore.listen(0, '127.0.0.1', () => r()));
  const config = await testConfig({ CORE_URL: `http://127.0.0.1:${(slowCore.address() as AddressInfo).port}` });
  const lines: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
  const gateway = createGatewayApp({ config, logger: createLogger({ level: 'info', service: 'gateway', stream }), store: (await openTestStore({ collections: GATEWAY_COLLECTIONS })) });
  const s = await listen(gateway.app, 0, '127.0.0.1');
  try {
    const caller = connect((s.address() as AddressInfo).port, '127.0.0.1');
    caller.write('GET /operations-manager/jobs HTTP/1.1\r\nHost: x\r\n\r\n');
    await reached;
    caller.destroy();
    await closed;
    // The gateway dropped its upstream socket (and would have logged a failure then) before the core could read
    // the close, so one more turn of the event loop has everything it logged about it.
    await nextTurn();
    assert.deepEqual(lines.filter((l) => /"level":"(warn|error)"/.test(l)), []);
  } finally {
    await gateway.close();
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
    slowCore.close();
  }
});

test('a body larger than the limit is refused with 413 before reaching the core, declared or streamed', async () => {
  const big = 'x'.repeat(2 * 1024 * 1024);
  const declared = await request(`${gatewayUrl}/operations-manager/jobs/start`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${core.adminToken}` }, body: JSON.stringify({ workflow: big }) });
  assert.equal(declared.status, 413);
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(`{"workflow":"${big}"}`));
      controller.close();
    },
  });
  const streamed = await fetch(`${gatewayUrl}/operations-manager/jobs/start`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${core.adminToken}` }, body: stream, duplex: 'half' } as RequestInit);
  assert.equal(streamed.status, 413);
  await streamed.text();
});

test('hop-by-hop headers, and those Connection names, go neither way; the gateway\'s own headers are sent once', async () => {
  const { createServer } = await import('node:http');
  const { connect } = await import('node:net');
  let seenUpstream: Record<string, string | string[] | undefined> = {};
  // An upstream that tells what it received and answers with hop-by-hop headers of its own, a cookie list, and
  // values of its own for the headers the gateway writes on every answer.
  const echo = createServer((req, res) => {
    seenUpstream = req.headers;
    res.writeHead(200, { connection: 'x-upstream-private', 'x-upstream-private': 'hidden', 'keep-alive': 'timeout=9', 'set-cookie': ['a=1', 'b=2'], 'x-frame-options': 'SAMEORIGIN', 'x-request-id': 'from-upstream', 'content-type': 'application/json', 'content-length': '2' });
    res.end('{}');
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  const config = await testConfig({ CORE_URL: `http://127.0.0.1:${(echo.address() as AddressInfo).port}` });
  const gateway = createGatewayApp({ config, logger: createLogger({ level: 'error', service: 'gateway', silent: true }), store: await openTestStore({ collections: GATEWAY_COLLECTIONS }) });
  const s = await listen(gateway.app, 0, '127.0.0.1');
  try {
    const caller = connect((s.address() as AddressInfo).port, '127.0.0.1');
    // Listing the gateway's own headers in Connection must not take them off the call: the core would then see
    // every such caller as the gateway itself.
    caller.write('GET /operations-manager/jobs HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, X-Private, X-Forwarded-For, X-Request-Id, Host\r\nX-Private: secret\r\nTE: trailers\r\nProxy-Authorization: Basic c2VjcmV0\r\nX-Forwarded-For: 10.0.0.1\r\nX-Request-Id: caller-1\r\nAuthorization: Bearer t\r\n\r\n');
    let raw = '';
    await new Promise<void>((resolve) => caller.on('data', (chunk: Buffer) => {
      raw += chunk.toString();
      if (raw.endsWith('{}')) resolve();
    }));
    caller.destroy();
    for (const name of ['x-private', 'te', 'proxy-authorization']) assert.equal(seenUpstream[name], undefined, `${name} reached the upstream`);
    assert.equal(seenUpstream['authorization'], 'Bearer t');
    assert.equal(seenUpstream['x-request-id'], 'caller-1');
    assert.equal(seenUpstream['x-forwarded-for'], '10.0.0.1, 127.0.0.1');
    assert.equal(seenUpstream['x-forwarded-proto'], 'http');
    assert.match(String(seenUpstream['host']), /^127\.0\.0\.1:\d+$/);
    const head = raw.slice(0, raw.indexOf('\r\n\r\n')).toLowerCase().split('\r\n');
    const values = (name: string): string[] => head.filter((line) => line.startsWith(`${name}:`)).map((line) => line.slice(name.length + 1).trim());
    assert.deepEqual(values('x-upstream-private'), []);
    assert.deepEqual(values('keep-alive').filter((v) => v.includes('timeout=9')), []);
    assert.deepEqual(values('set-cookie'), ['a=1', 'b=2']);
    assert.deepEqual(values('x-frame-options'), ['deny']);
    assert.deepEqual(values('x-request-id'), ['caller-1']);
  } finally {
    await gateway.close();
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
    echo.close();
  }
});
