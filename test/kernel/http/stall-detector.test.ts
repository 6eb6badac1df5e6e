/**
 * The stall detector in both services: a request that blocks the event loop
 * for 300 ms is named in one warning (its request id and route, never its
 * query string) and counted. For the core, the real core app with a blocking
 * middleware put in front of its routes; for the gateway, the real gateway
 * app, whose legacy and pass-through requests run on node:http outside Koa,
 * in front of a stand-in core that blocks while they wait for it.
 *
 * Each service makes its own detector and passes it to its server and its
 * metrics; nothing in the process is shared.
 *
 * A timing test: the detector is a real interval timer measuring a real
 * block of the event loop, so the tests wait real time for it to look.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Middleware } from 'koa';
import { createCoreApp } from '../../../core/src/app.ts';
import { listen } from '../../../kernel/http/listen.ts';
import { STALL_CHECK_MS, StallDetector } from '../../../kernel/http/stall-detector.ts';
import { createLogger } from '../../../kernel/logger.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { createGatewayApp } from '../../../gateway/src/app.ts';
import { testConfig } from '../../helpers/core.ts';
import { timingSleep } from '../../helpers/wait.ts';

const BLOCK_MS = 300;
const lines: Array<Record<string, unknown>> = [];
const stream = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});
const logger = createLogger({ level: 'warn', service: 'test', stream });
let detector: StallDetector;
before(() => {
  detector = new StallDetector({ thresholdMs: 200, intervalMs: STALL_CHECK_MS, logger }).start();
});
after(() => detector.stop());

function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Busy on purpose: this is the stall.
  }
}

/** Two of the detector's checks: the first after a block finds it, the second shows it is not logged twice. */
const detectorLooks = (): Promise<void> => timingSleep(2 * STALL_CHECK_MS, 'the stall detector is a real interval timer on the event loop; it notices a block only at its next check');

/** The stall warnings naming `requestId`. */
function stallsOf(requestId: string): Array<Record<string, unknown>> {
  return lines.filter((l) => typeof l['message'] === 'string' && l['message'].startsWith('event loop stalled') && l['requestId'] === requestId);
}

test('a core request that blocks the loop for 300 ms is logged once with its request id and route, and counted', { timeout: 15_000 }, async () => {
  const config = await testConfig();
  const store = await openTestStore();
  const core = createCoreApp({ store, config, logger: createLogger({ level: 'error', service: 'core', silent: true }) });
  const blocking: Middleware = async (ctx, next) => {
    if (ctx.get('x-test-block') === 'yes') block(BLOCK_MS);
    await next();
  };
  core.app.middleware.unshift(blocking);
  const server = await listen(core.app, 0, '127.0.0.1', { requests: detector });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const counted = detector.count();
    const res = await fetch(`${url}/health/live?token=not-for-logs`, { headers: { 'x-request-id': 'stall-core-1', 'x-test-block': 'yes' } });
    assert.equal(res.status, 200);
    await fetch(`${url}/health/live`, { headers: { 'x-request-id': 'calm-core-1' } });
    await detectorLooks();
    const found = stallsOf('stall-core-1');
    assert.equal(found.length, 1, JSON.stringify(lines));
    assert.equal(found[0]!['route'], 'GET /health/live');
    assert.equal(found[0]!['level'], 'warn');
    assert.ok((found[0]!['stalledMs'] as number) >= 200, `measured ${String(found[0]!['stalledMs'])} ms`);
    assert.doesNotMatch(JSON.stringify(found[0]), /not-for-logs/);
    assert.deepEqual(stallsOf('calm-core-1'), [], 'a request that does not block is not named');
    assert.ok(detector.count() >= counted + 1, 'the stall is counted');
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await store.close();
  }
});

test('the gateway\'s pass-through and legacy requests (node:http, outside Koa) are named by the stall they ran into', { timeout: 15_000 }, async () => {
  // A stand-in core that blocks this process's loop while a gateway request waits for its answer.
  const standIn = createServer((req, res) => {
    block(BLOCK_MS);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    req.resume();
  });
  await new Promise<void>((r) => standIn.listen(0, '127.0.0.1', r));
  const coreUrl = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`;
  const config = await testConfig({ CORE_URL: coreUrl });
  const store = await openTestStore({ countCacheEntries: 0 });
  const gateway = createGatewayApp({ config, logger: createLogger({ level: 'error', service: 'gateway', silent: true }), store, stalls: detector });
  const server = await listen(gateway.app, 0, '127.0.0.1', { requests: detector });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const counted = detector.count();
    await fetch(`${url}/operations-manager/jobs?limit=1`, { headers: { 'x-request-id': 'stall-pass-1', authorization: 'Bearer x' } });
    await detectorLooks();
    const passing = stallsOf('stall-pass-1');
    assert.equal(passing.length, 1, JSON.stringify(lines));
    assert.equal(passing[0]!['route'], 'GET /operations-manager/jobs');

    // No id from the caller: the one the gateway made up is the one logged and answered.
    const legacy = await fetch(`${url}/user-management/roles?limit=1`, { headers: { authorization: 'Bearer x' } });
    await legacy.text();
    await detectorLooks();
    const given = legacy.headers.get('x-request-id');
    assert.ok(given);
    // The legacy operation may call the core more than once: each call is a stall, each names it.
    const named = stallsOf(given);
    assert.ok(named.length >= 1, JSON.stringify(lines));
    assert.deepEqual(new Set(named.map((l) => l['route'])), new Set(['GET /user-management/roles']));
    assert.ok(detector.count() >= counted + 2);
  } finally {
    await gateway.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    standIn.closeAllConnections();
    await new Promise((r) => standIn.close(r));
    await store.close();
  }
});

test('two detectors in one process each name only the requests of the server they were given', { timeout: 15_000 }, async () => {
  const theirs: Array<Record<string, unknown>> = [];
  const theirLogger = createLogger({
    level: 'warn',
    service: 'test',
    stream: new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim() !== '') theirs.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  });
  // Another service's detector in the same process, started after ours and given no server.
  const other = new StallDetector({ thresholdMs: 200, intervalMs: STALL_CHECK_MS, logger: theirLogger }).start();
  const config = await testConfig();
  const store = await openTestStore();
  const core = createCoreApp({ store, config, logger: createLogger({ level: 'error', service: 'core', silent: true }), stalls: detector });
  core.app.middleware.unshift(async (ctx, next) => {
    if (ctx.get('x-test-block') === 'yes') block(BLOCK_MS);
    await next();
  });
  const server = await listen(core.app, 0, '127.0.0.1', { requests: detector });
  try {
    const otherCounted = other.count();
    await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/health/live`, { headers: { 'x-request-id': 'stall-mine-1', 'x-test-block': 'yes' } });
    await detectorLooks();
    assert.equal(stallsOf('stall-mine-1').length, 1, 'the detector given the server names its request');
    const seenByOther = theirs.filter((l) => typeof l['message'] === 'string' && l['message'].startsWith('event loop stalled'));
    assert.ok(seenByOther.length >= 1, 'the other detector feels the same stall of the shared event loop');
    assert.ok(other.count() >= otherCounted + 1);
    assert.deepEqual(seenByOther.map((l) => l['requestId']), seenByOther.map(() => null), 'but names none of a server it was not given');
  } finally {
    other.stop();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await store.close();
  }
});
