/**
 * The gateway's calls to the core take no option from `Object.prototype`
 * (gateway/src/request-options.ts): with `hostname` planted there, as the
 * legacy projection of issue 26 once did, a rewritten call still reaches
 * the core and nothing reaches [::1] (the pass-through builds its options
 * the same way).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCoreClient } from '../../gateway/src/core-client.ts';
import { coreRequestOptions } from '../../gateway/src/request-options.ts';
import { createUpstream } from '../../gateway/src/upstream.ts';

function listen(server: Server, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve((server.address() as AddressInfo).port)));
}

/** A core stand-in on IPv4 loopback that answers every call 200 and keeps what it was asked. */
async function standInCore(): Promise<{ core: Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const core = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  return { core, port: await listen(core, '127.0.0.1'), seen };
}

test('with hostname, port and headers planted on Object.prototype, a call to the core still goes to the core', async (t) => {
  const { core, port, seen } = await standInCore();
  const impostorSaw: string[] = [];
  const impostor = createServer((req, res) => {
    impostorSaw.push(`${req.method} ${req.url}`);
    res.writeHead(200).end('{}');
  });
  await listen(impostor, '::1', port);
  const client = createCoreClient(createUpstream({ url: `http://127.0.0.1:${port}`, caFile: null, tlsVerify: true, timeoutMs: 5000 }));
  const proto = Object.prototype as Record<string, unknown>;
  t.after(() => {
    for (const key of ['hostname', 'x-rt-polluted']) delete proto[key];
    client.close();
    core.close();
    impostor.close();
  });
  // Planted for this test only, and removed in t.after whatever happens.
  proto['hostname'] = '::1';
  proto['x-rt-polluted'] = 'yes';
  const answer = await client.forCaller({ authorization: 'Bearer t' })({ method: 'GET', path: '/operations-manager/jobs', query: { limit: '1' }, body: undefined });
  delete proto['hostname'];
  delete proto['x-rt-polluted'];
  assert.equal(answer.status, 200);
  assert.deepEqual(seen, ['GET /operations-manager/jobs?limit=1']);
  assert.deepEqual(impostorSaw, []);
});

test('with localAddress, family and lookup planted on Object.prototype, a call still connects as it should: the socket reads them from copies without a prototype', async (t) => {
  const { core, port, seen } = await standInCore();
  const client = createCoreClient(createUpstream({ url: `http://127.0.0.1:${port}`, caFile: null, tlsVerify: true, timeoutMs: 5000 }));
  const proto = Object.prototype as Record<string, unknown>;
  const planted = ['localAddress', 'family', 'lookup'];
  t.after(() => {
    for (const key of planted) delete proto[key];
    client.close();
    core.close();
  });
  // Each would break the connection if read: an address not on this host, IPv6 for an IPv4 address, a lookup that is not a function.
  proto['localAddress'] = '203.0.113.7';
  proto['family'] = 6;
  proto['lookup'] = 'not a function';
  const answer = await client.forCaller({ authorization: 'Bearer t' })({ method: 'GET', path: '/operations-manager/jobs', query: {}, body: undefined });
  for (const key of planted) delete proto[key];
  assert.equal(answer.status, 200);
  assert.deepEqual(seen, ['GET /operations-manager/jobs']);
});

test('the options name every address option as an own property, the IPv6 host without brackets', () => {
  const upstream = createUpstream({ url: 'http://[::1]:3001', caFile: null, tlsVerify: true, timeoutMs: 1000 });
  const options = coreRequestOptions(upstream, 'GET', '/x', {});
  upstream.close();
  // Every option ClientRequest reads from its copy of the options (lib/_http_client.js), but `host` (hostname is
  // read first and is always set) and `_defaultAgent` (only read without an agent).
  for (const key of ['agent', 'createConnection', 'protocol', 'path', 'defaultPort', 'port', 'hostname', 'setHost', 'socketPath', 'timeout', 'signal', 'method', 'maxHeaderSize', 'insecureHTTPParser', 'joinDuplicateHeaders', 'headers', 'auth', 'uniqueHeaders']) {
    assert.ok(Object.hasOwn(options, key), key);
  }
  // Beyond 19, Object.assign's copy inside ClientRequest becomes a slow dictionary (V8's fast-property limit).
  assert.ok(Object.keys(options).length <= 19, `${Object.keys(options).length} options`);
  assert.equal(options.hostname, '::1');
  assert.equal(options.port, 3001);
  assert.equal(options.protocol, 'http:');
});

test('an https upstream without a port is called on 443 over https', () => {
  const upstream = createUpstream({ url: 'https://platform.example', caFile: null, tlsVerify: true, timeoutMs: 1000 });
  const options = coreRequestOptions(upstream, 'GET', '/x', {});
  upstream.close();
  assert.equal(options.protocol, 'https:');
  assert.equal(options.hostname, 'platform.example');
  assert.equal(options.port, 443);
});
