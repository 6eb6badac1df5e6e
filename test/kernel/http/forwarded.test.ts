/**
 * kernel/http/forwarded.ts: whose X-Forwarded-* headers are believed, and
 * which address of the chain is the client (docs/auth.md, "Forwarded addresses").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { forwardedOf, forwardedRequest, trustedProxies } from '../../../kernel/http/forwarded.ts';

const loopback = trustedProxies(['127.0.0.1', '::1']);

test('an untrusted peer is the client, and its forwarding headers mean nothing', () => {
  const f = forwardedOf('203.0.113.7', false, { host: 'iap.example', 'x-forwarded-for': '10.0.0.1', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' }, loopback);
  assert.deepEqual(f, { client: '203.0.113.7', proto: 'http', host: 'iap.example', viaProxy: false });
});

test('behind a trusted proxy the client is the right-most untrusted address, not the left-most one a client can write', () => {
  const f = forwardedOf('127.0.0.1', false, { host: 'core:3001', 'x-forwarded-for': '198.51.100.1, 203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'iap.example' }, loopback);
  assert.deepEqual(f, { client: '203.0.113.7', proto: 'https', host: 'iap.example', viaProxy: true });
});

test('trusted proxies in the chain are skipped; a chain of trusted addresses only ends at its left-most', () => {
  const trusted = trustedProxies(['127.0.0.1', '10.1.0.0/16']);
  assert.equal(forwardedOf('127.0.0.1', false, { 'x-forwarded-for': '192.0.2.9, 10.1.2.3' }, trusted).client, '192.0.2.9');
  assert.equal(forwardedOf('127.0.0.1', false, { 'x-forwarded-for': '10.1.0.9, 10.1.2.3' }, trusted).client, '10.1.0.9');
  assert.equal(forwardedOf('127.0.0.1', false, {}, trusted).client, '127.0.0.1', 'no chain: the proxy itself');
  assert.equal(forwardedOf('10.2.0.1', false, { 'x-forwarded-for': '192.0.2.9' }, trusted).client, '10.2.0.1', 'outside the block');
});

test('IPv4-mapped IPv6 peers and entries are their IPv4 addresses; IPv6 CIDR blocks work', () => {
  assert.equal(forwardedOf('::ffff:127.0.0.1', false, { 'x-forwarded-for': '::ffff:192.0.2.4' }, loopback).client, '192.0.2.4');
  const v6 = trustedProxies(['fd00::/8']);
  assert.equal(forwardedOf('fd12::1', false, { 'x-forwarded-for': '2001:db8::5' }, v6).client, '2001:db8::5');
  assert.equal(trustedProxies([])('127.0.0.1'), false, 'an empty list trusts no one');
  assert.equal(loopback('not an address'), false);
});

test('X-Forwarded-Proto other than http or https keeps the connection\'s own protocol', () => {
  assert.equal(forwardedOf('127.0.0.1', true, { 'x-forwarded-proto': 'gopher' }, loopback).proto, 'https');
});

test('an address remembered as untrusted stays untrusted after a flood of other addresses, and a trusted one stays trusted', () => {
  const trusted = trustedProxies(['10.1.0.0/16']);
  assert.equal(trusted('10.2.0.1'), false);
  assert.equal(trusted('10.1.0.1'), true);
  // A caller may send any number of addresses in X-Forwarded-For: far more than are remembered.
  for (let i = 0; i < 5000; i += 1) trusted(`192.0.${i >> 8}.${i & 255}`);
  assert.equal(trusted('10.2.0.1'), false);
  assert.equal(trusted('10.1.0.1'), true);
  assert.equal(trusted('::ffff:10.1.0.1'), true, 'the mapped form is its own entry, answered alike');
});

/** What Koa's `ctx.host`, `ctx.protocol` and `ctx.ip` say behind forwardedRequest, for a request from loopback with these headers. */
async function koaSees(headers: Record<string, string>): Promise<{ host: string; protocol: string; ip: string }> {
  const app = new Koa();
  app.use(forwardedRequest(loopback));
  app.use((ctx) => {
    ctx.body = { host: ctx.host, protocol: ctx.protocol, ip: ctx.ip };
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/`, { headers });
    return (await res.json()) as { host: string; protocol: string; ip: string };
  } finally {
    server.close();
  }
}

test('Koa reads the host a trusted proxy forwarded, whether it is plain (the Host header takes it) or one Koa would cut (a list, user information)', async () => {
  assert.deepEqual(await koaSees({ 'x-forwarded-host': 'gw.example:3000', 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.4' }), { host: 'gw.example:3000', protocol: 'https', ip: '198.51.100.4' });
  assert.equal((await koaSees({ 'x-forwarded-host': 'user@gw.example' })).host, 'user@gw.example');
  // Without X-Forwarded-Host the request's own Host stands.
  assert.match((await koaSees({ 'x-forwarded-for': '198.51.100.4' })).host, /^127\.0\.0\.1:\d+$/);
});
