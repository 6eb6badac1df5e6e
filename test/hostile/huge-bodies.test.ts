/**
 * Bodies over `http.bodyLimit` (1mb) on every route that reads a body,
 * enumerated from the core's route table and the gateway's mapping table:
 * 413 PAYLOAD_TOO_LARGE in the route's own shape, directly, through the
 * gateway's pass-through and from every legacy operation that takes a body,
 * whether the length is declared or the body streams in chunks, and for a
 * small gzip body that inflates past the limit. Nothing reaches a handler, so
 * the store holds exactly what it held, and both processes still serve.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.ts';
import { errorShapeProblems, internalFailures, legacyAnswerProblems } from './answers.ts';
import { fillPath, paramCount } from './requests.ts';
import { describe, send } from './wire.ts';
import type { Answer, HostileRequest } from './wire.ts';
import { startWorld } from './world.ts';
import type { World } from './world.ts';

let world: World;
let limit: number;
before(async () => {
  world = await startWorld();
  limit = world.core.config.http.bodyLimitBytes;
});
after(() => world?.close());

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const id = { value: '0'.repeat(24), encoding: 'encoded' as const };

function oversized(method: string, pathname: string, chunked: boolean): HostileRequest {
  return { method, pathname, query: '', body: { kind: 'oversize', bytes: limit + 1024, chunked }, credential: { kind: 'admin' } };
}

test('every core route that reads a body answers 413 in its own shape, directly and through the gateway, declared or streamed', async () => {
  const routes = world.core.core.routes.filter((r) => BODY_METHODS.has(r.method) || r.input.body);
  assert.ok(routes.length > 50, `${routes.length} routes read a body`);
  const from = world.core.logs.length;
  for (const route of routes) {
    const pathname = fillPath(route.path, Array.from({ length: paramCount(route.path) }, () => id));
    for (const [target, url] of [['core', world.core.url], ['gateway', world.gateway.url]] as const) {
      for (const chunked of [false, true]) {
        const req = oversized(route.method, pathname, chunked);
        const answer = await send(url, req, world.tokens);
        assert.equal(answer.status, 413, `${target}: ${describe(req)} -> ${answer.status} ${answer.text.slice(0, 200)}`);
        assert.deepEqual(errorShapeProblems(answer, route.shape, false), [], `${target}: ${describe(req)}`);
      }
    }
  }
  assert.deepEqual(internalFailures(world.core.logs, from), []);
  await assertUnharmed();
});

test('every legacy operation that takes a body answers 413 as a legacy string, declared or streamed', async () => {
  const entries = world.gateway.gateway.entries.filter((e) => BODY_METHODS.has(e.legacy.method));
  assert.ok(entries.length > 30, `${entries.length} legacy operations take a body`);
  const from = world.gatewayLogs.length;
  for (const entry of entries) {
    const pathname = fillPath(entry.legacy.path, Array.from({ length: paramCount(entry.legacy.path) }, () => id));
    for (const chunked of [false, true]) {
      const req = oversized(entry.legacy.method, pathname, chunked);
      const answer = await send(world.gateway.url, req, world.tokens);
      const removed = answer.status === 410;
      assert.ok(answer.status === 413 || removed, `${entry.id}: ${describe(req)} -> ${answer.status} ${answer.text.slice(0, 200)}`);
      assert.deepEqual(legacyAnswerProblems(answer, { maySucceed: false }), [], `${entry.id}: ${describe(req)}`);
      if (!removed) assert.equal(answer.headers['x-error-code'], 'PAYLOAD_TOO_LARGE');
    }
  }
  assert.deepEqual(world.gatewayLogs.slice(from).filter((l) => /"level":"error"/.test(l)), []);
  await assertUnharmed();
});

/** Sends a gzip body as it is: send() would not set Content-Encoding. */
function sendGzip(baseUrl: string, pathname: string, body: Buffer): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method: 'POST', path: pathname, headers: { authorization: `Bearer ${world.tokens.admin}`, 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: JSON.parse(text) as unknown });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a small gzip body that inflates past the limit answers 413, directly and through the gateway', async () => {
  const bomb = gzipSync(Buffer.from(`{"a":"${'a'.repeat(limit * 4)}"}`));
  assert.ok(bomb.length < limit / 100, `the gzip body is ${bomb.length} bytes`);
  for (const url of [world.core.url, world.gateway.url]) {
    const answer = await sendGzip(url, '/operations-manager/jobs/start', bomb);
    assert.equal(answer.status, 413, answer.text);
    assert.deepEqual(errorShapeProblems(answer, 'operations-manager', false), []);
  }
  await assertUnharmed();
});

async function assertUnharmed(): Promise<void> {
  assert.equal((await world.core.request('/health/live', { token: null })).status, 200, 'the core still serves');
  assert.equal((await send(world.gateway.url, { method: 'GET', pathname: '/gateway/health/live', query: '', body: { kind: 'none' }, credential: { kind: 'none' } }, world.tokens)).status, 200, 'the gateway still serves');
  assert.deepEqual(diffSnapshots(world.snapshot, await snapshotStore(world.store)), [], 'the store is exactly as it was');
}
