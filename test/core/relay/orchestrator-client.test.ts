/**
 * The relay's HTTP client against real loopback servers: one kept-alive
 * connection for calls in turn, the adapter's TLS roots honoured (and a
 * server they do not vouch for refused), a redirect answered but never
 * followed, a body sent with its length, and a slow answer cut at the
 * adapter's timeout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Adapter } from '../../../core/src/adapters/registry.ts';
import { OrchestratorClient } from '../../../core/src/relay/orchestrator.ts';
import { AppError } from '../../../kernel/index.ts';
import { makeTls, opensslMissing } from '../../../tools/platform-sim/tls.ts';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly socket: number;
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void, tls: { key: string; cert: string } | null = null, host = '127.0.0.1'): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const sockets = new Map<unknown, number>();
  const listener: RequestListener = (req, res) => {
    if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size + 1);
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body, socket: sockets.get(req.socket)! });
      handle(req, res, body);
    });
  };
  const server = tls ? createHttpsServer(tls, listener) : createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const adapterAt = (baseUrl: string, extra: Partial<Adapter> = {}): Adapter => ({ name: 'Local NSO', type: 'nso', baseUrl, credentials: { username: 'u', password: 'p' }, timeoutMs: 1000, tls: { rejectUnauthorized: true, ca: null }, enabled: true, source: 'config', ...extra });
const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/yang-data+json' });
  res.end(JSON.stringify(body));
};
const get = (url: string) => ({ method: 'GET' as const, url: new URL(url), accept: 'application/yang-data+json', contentType: null, body: null });

test('calls in turn share one kept-alive connection and carry the adapter\'s credentials', async () => {
  const server = await serve((_req, res) => json(res, 200, { ok: true }));
  const client = new OrchestratorClient();
  try {
    for (let i = 0; i < 3; i += 1) assert.deepEqual(await client.send(adapterAt(server.url), get(`${server.url}/restconf/data`)), { status: 200, data: { ok: true } });
    assert.deepEqual(server.seen.map((s) => s.socket), [1, 1, 1]);
    assert.equal(server.seen[0]!.headers.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
    assert.equal(server.seen[0]!.headers.accept, 'application/yang-data+json');
  } finally {
    await server.close();
  }
});

test('an orchestrator at an IPv6 address is reached, its path and query sent as given', async (t) => {
  let server: Awaited<ReturnType<typeof serve>>;
  try {
    server = await serve((_req, res) => json(res, 200, { ok: true }), null, '::1');
  } catch (err) {
    t.skip(`skipped: this machine has no IPv6 loopback (${(err as Error).message})`);
    return;
  }
  try {
    assert.deepEqual(await new OrchestratorClient().send(adapterAt(server.url), get(`${server.url}/restconf/data/devices?depth=2`)), { status: 200, data: { ok: true } });
    assert.equal(server.seen[0]!.url, '/restconf/data/devices?depth=2');
  } finally {
    await server.close();
  }
});

test('a body is sent whole with its length and content type; POST is not retried on a 503', async () => {
  const server = await serve((_req, res) => json(res, 503, { busy: true }));
  try {
    const body = JSON.stringify({ 'tailf-ncs:device': { name: 'ce9', note: 'é'.repeat(10) } });
    const answer = await new OrchestratorClient().send(adapterAt(server.url), { method: 'POST', url: new URL(`${server.url}/restconf/data`), accept: 'application/yang-data+json', contentType: 'application/yang-data+json', body });
    assert.equal(answer.status, 503);
    assert.equal(server.seen.length, 1);
    assert.equal(server.seen[0]!.body, body);
    assert.equal(server.seen[0]!.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(server.seen[0]!.headers['content-type'], 'application/yang-data+json');
  } finally {
    await server.close();
  }
});

test('a redirect to another host is answered as it came: the credentials never reach that host', async () => {
  const elsewhere = await serve((_req, res) => json(res, 200, { stolen: true }));
  const server = await serve((_req, res) => {
    res.writeHead(302, { location: `${elsewhere.url}/collect` });
    res.end();
  });
  try {
    const answer = await new OrchestratorClient().send(adapterAt(server.url), get(`${server.url}/restconf/data`));
    assert.equal(answer.status, 302);
    assert.equal(elsewhere.seen.length, 0);
  } finally {
    await Promise.all([server.close(), elsewhere.close()]);
  }
});

test('an answer slower than the adapter\'s timeout is a 504 naming the adapter, and is not retried', async () => {
  const server = await serve((_req, res) => setTimeout(() => json(res, 200, {}), 1500));
  try {
    const started = Date.now();
    await assert.rejects(new OrchestratorClient().send(adapterAt(server.url, { timeoutMs: 200 }), get(`${server.url}/slow`)), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.status, 504);
      assert.match(err.message, /^Adapter "Local NSO" did not answer within 200 ms/);
      return true;
    });
    assert.ok(Date.now() - started < 1000, 'the call ends at the timeout');
    assert.equal(server.seen.length, 1);
  } finally {
    await server.close();
  }
});

test('over TLS the adapter\'s own CA is trusted, and a server it does not vouch for is refused', { skip: opensslMissing() ?? false }, async () => {
  const material = makeTls();
  const other = makeTls();
  const server = await serve((_req, res) => json(res, 200, { secure: true }), material);
  const client = new OrchestratorClient();
  try {
    assert.deepEqual(await client.send(adapterAt(server.url, { tls: { rejectUnauthorized: true, ca: material.ca } }), get(`${server.url}/restconf/data`)), { status: 200, data: { secure: true } });
    // Another adapter at the same address, trusting another CA, must not ride on the first one's verified connection.
    await assert.rejects(client.send(adapterAt(server.url, { tls: { rejectUnauthorized: true, ca: other.ca } }), get(`${server.url}/restconf/data`)), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.status, 502);
      assert.match(err.message, /could not be reached/);
      return true;
    });
    await assert.rejects(client.send(adapterAt(server.url), get(`${server.url}/restconf/data`)), (err: unknown) => err instanceof AppError && err.status === 502);
    assert.equal(server.seen.length, 1, 'only the vouched-for call reached the server');
  } finally {
    await server.close();
  }
});
