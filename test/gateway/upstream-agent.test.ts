/**
 * The upstream's sockets keep one idle limit for their life
 * (gateway/src/upstream-agent.ts): set once when made, not cleared and set
 * again around every call; a call still times out, an idle pooled socket is
 * still closed, and a server's shorter keep-alive hint still wins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createUpstream } from '../../gateway/src/upstream.ts';
import type { Upstream } from '../../gateway/src/upstream.ts';
import { coreRequestOptions } from '../../gateway/src/request-options.ts';
import { eventually, nextTurn } from '../helpers/wait.ts';

async function standIn(answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; port: number; closed: () => number }> {
  const server = createServer(answer);
  let closed = 0;
  server.on('connection', (socket) => socket.on('close', () => (closed += 1)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as AddressInfo).port, closed: () => closed };
}

function call(upstream: Upstream, path = '/x'): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = upstream.request(coreRequestOptions(upstream, 'GET', path, ['host', upstream.target.host]), (res) => {
      const socket = res.socket as Socket;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, socket }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

test('a kept-alive socket gets its idle limit once, not again around every call', async (t) => {
  const { server, port } = await standIn((_req, res) => res.end('{}'));
  // Its keep-alive hint (59 s once Node takes its second off) is longer than the limit, so it changes nothing.
  server.keepAliveTimeout = 60_000;
  const upstream = createUpstream({ url: `http://127.0.0.1:${port}`, caFile: null, tlsVerify: true, timeoutMs: 30_000 });
  const set: Array<[Socket, number]> = [];
  const original = Socket.prototype.setTimeout;
  t.after(() => {
    Socket.prototype.setTimeout = original;
    upstream.close();
    server.close();
  });
  Socket.prototype.setTimeout = function counted(this: Socket, ms: number, cb?: () => void) {
    set.push([this, ms]);
    return original.call(this, ms, cb);
  } as typeof original;
  const sockets = new Set<Socket>();
  for (let i = 0; i < 5; i += 1) {
    sockets.add((await call(upstream)).socket);
    // The socket goes back to the pool a tick after the answer ends.
    await nextTurn();
  }
  assert.equal(sockets.size, 1, 'the five calls shared one kept-alive socket');
  // Node's per-call timeout would have cleared it (0) and set it again (30000) for each call.
  const [socket] = sockets;
  assert.deepEqual(set.filter(([s]) => s === socket).map(([, ms]) => ms), [30_000]);
});

test('a call to an upstream that never answers times out at the socket\'s idle limit', async (t) => {
  const { server, port } = await standIn(() => undefined);
  const upstream = createUpstream({ url: `http://127.0.0.1:${port}`, caFile: null, tlsVerify: true, timeoutMs: 200 });
  t.after(() => {
    upstream.close();
    server.closeAllConnections();
    server.close();
  });
  const started = performance.now();
  await assert.rejects(call(upstream), /timed out/);
  const took = performance.now() - started;
  assert.ok(took >= 150 && took < 2000, `timed out after ${Math.round(took)} ms`);
});

test('a socket idle in the pool past the limit is closed, and the next call opens a new one', async (t) => {
  const { server, port, closed } = await standIn((_req, res) => res.end('{}'));
  const upstream = createUpstream({ url: `http://127.0.0.1:${port}`, caFile: null, tlsVerify: true, timeoutMs: 150 });
  t.after(() => {
    upstream.close();
    server.close();
  });
  const first = await call(upstream);
  await eventually(() => closed() === 1, { timeoutMs: 3000 });
  assert.equal(first.socket.destroyed, true);
  const second = await call(upstream);
  assert.equal(second.status, 200);
  assert.notEqual(second.socket, first.socket);
});

test('a server\'s shorter keep-alive hint shortens the socket\'s limit; one too short to reuse closes it after the call', async (t) => {
  const { server, port, closed } = await standIn((req, res) => {
    res.setHeader('keep-alive', req.url === '/brief' ? 'timeout=1' : 'timeout=3');
    res.end('{}');
  });
  const upstream = createUpstream({ url: `http://127.0.0.1:${port}`, caFile: null, tlsVerify: true, timeoutMs: 30_000 });
  t.after(() => {
    upstream.close();
    server.close();
  });
  const hinted = await call(upstream, '/hinted');
  // Node leaves a second under the announced time, so the client closes first.
  await eventually(() => hinted.socket.timeout === 2000, { timeoutMs: 2000 });
  assert.equal(hinted.socket.destroyed, false);
  const brief = await call(upstream, '/brief');
  assert.equal(brief.socket, hinted.socket, 'the kept socket was reused');
  await eventually(() => closed() === 1 && brief.socket.destroyed, { timeoutMs: 2000 });
});
