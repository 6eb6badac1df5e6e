/**
 * The gateway's connection to an upstream over HTTPS under a base path, as a
 * real platform behind a reverse proxy is reached: the platform stand-in
 * (tools/platform-sim) with certificates from its own CA, in front of the
 * real core. A private CA is trusted only through CORE_CA_FILE; turning
 * verification off is warned about at every start; the base path is kept on
 * every call and cannot be left by a path a proxy would resolve. Without
 * openssl the suite says it skipped and why.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { ConfigError } from '../../config/load.ts';
import { createUpstream } from '../../gateway/src/upstream.ts';
import { createLogger } from '../../kernel/logger.ts';
import { simCall } from '../../tools/platform-sim/client.ts';
import { opensslMissing } from '../../tools/platform-sim/tls.ts';
import { startBehindPlatform } from '../helpers/behind-platform.ts';
import type { BehindPlatform } from '../helpers/behind-platform.ts';
import { startGateway } from '../helpers/gateway.ts';

const missing = opensslMissing();
const BASE = '/iap';

/** A POST of `{}` to `path` exactly as written, which fetch would normalise first. */
function rawPost(base: string, path: string): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': '2' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger({ level: 'warn', service: 'gateway', stream }), lines };
}

describe('the gateway over HTTPS under a base path', { skip: missing === null ? false : `skipped: ${missing}; the platform stand-in serves HTTPS with certificates made by openssl` }, () => {
  let env: BehindPlatform;

  before(async () => {
    env = await startBehindPlatform({ basePath: BASE });
  });
  after(async () => {
    await env?.close();
  });

  test('an upstream whose certificate a private CA signed is refused without CORE_CA_FILE and reached with it', async () => {
    const untrusting = await startGateway(`${env.sim.url}${BASE}`);
    const trusting = await startGateway(`${env.sim.url}${BASE}`, { CORE_CA_FILE: env.caFile });
    try {
      const since = env.sim.requests.length;
      const refused = await fetch(`${untrusting.url}/whoami?token=${env.adminToken}`);
      assert.equal(refused.status, 502, 'the TLS handshake fails: nothing is sent');
      assert.equal(env.requestsSince(since).length, 0);
      const reached = await fetch(`${trusting.url}/whoami?token=${env.adminToken}`);
      assert.equal(reached.status, 200);
      assert.equal(((await reached.json()) as { username: string }).username, 'admin');
    } finally {
      await untrusting.close();
      await trusting.close();
    }
  });

  test('CORE_TLS_VERIFY=false reaches it without the CA, and warns at every start', async () => {
    for (let start = 0; start < 2; start += 1) {
      const { logger, lines } = capturingLogger();
      const gw = await startGateway(`${env.sim.url}${BASE}`, { CORE_TLS_VERIFY: 'false' }, { logger });
      try {
        assert.equal(lines.filter((l) => /"level":"warn"/.test(l) && /core\.tlsVerify is false/.test(l)).length, 1, lines.join(''));
        assert.equal((await fetch(`${gw.url}/whoami?token=${env.adminToken}`)).status, 200);
      } finally {
        await gw.close();
      }
    }
  });

  test('the base path is kept on the pass-through, the whoami check, the rewritten calls and the description', async () => {
    const gw = await startGateway(`${env.sim.url}${BASE}`, { CORE_CA_FILE: env.caFile });
    try {
      const since = env.sim.requests.length;
      assert.equal((await fetch(`${gw.url}/health/status`)).status, 200);
      assert.equal((await fetch(`${gw.url}/user-management/groups?token=${env.adminToken}`)).status, 200);
      assert.equal((await fetch(`${gw.url}/openapi.json`)).status, 200);
      const seen = env.requestsSince(since);
      assert.ok(seen.some((r) => r.url.startsWith(`${BASE}/whoami`)), 'the legacy call asked whoami');
      assert.ok(seen.some((r) => r.url.startsWith(`${BASE}/authorization/groups`)), 'and made its rewritten call');
      for (const r of seen) assert.ok(r.url.startsWith(`${BASE}/`), r.url);
      assert.deepEqual(seen.filter((r) => r.refused !== null && r.url !== `${BASE}/openapi.json`).map((r) => r.refused), []);
    } finally {
      await gw.close();
    }
  });

  test('a path that a proxy would resolve out of the base path is refused at the gateway and never sent', async () => {
    const gw = await startGateway(`${env.sim.url}${BASE}`, { CORE_CA_FILE: env.caFile });
    // Sent as written: fetch and URL would resolve some of these before sending.
    const escapes = ['/x/../../login', '/..%2flogin', '/%2e%2e/login', '/x/..%5c..%5clogin', '/%252e%252e%252flogin', '/.%2E/login', '/x\\..\\..\\login'];
    try {
      // The attack is real: the stand-in, resolving as a proxy does, finds each outside the base path
      // (those that survive its client's URL parsing; the others are resolved before they are sent).
      for (const path of ['/..%2flogin', '/x/..%5c..%5clogin', '/%252e%252e%252flogin']) {
        const direct = await simCall(`${env.sim.url}${BASE}${path}`, { ca: env.sim.ca, method: 'POST', body: {} });
        assert.equal(direct.status, 404, path);
        assert.match(String((direct.json as { message?: string }).message), /outside the base path/, path);
      }
      const since = env.sim.requests.length;
      for (const path of escapes) {
        const res = await rawPost(gw.url, path);
        assert.equal(res.status, 400, path);
        assert.match(res.text, /segment \(perhaps percent-encoded\)/, path);
      }
      // A legacy parameter that decodes to dot segments is not sent either.
      const legacy = await fetch(`${gw.url}/user-management/groups/..%2F..%2Flogin?token=${env.adminToken}`);
      assert.ok(legacy.status >= 400, String(legacy.status));
      assert.deepEqual(env.requestsSince(since).filter((r) => !r.url.startsWith(`${BASE}/whoami`)).map((r) => r.url), []);
      // A slash that is data, inside one segment, still passes.
      assert.notEqual((await fetch(`${gw.url}/automation-studio/workflows/a%2Fb?token=${env.adminToken}`)).status, 400);
    } finally {
      await gw.close();
    }
  });
});

describe('the CA file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'core-ca-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const settings = (caFile: string) => ({ url: 'https://127.0.0.1:3443', caFile, tlsVerify: true, timeoutMs: 1000 });

  test('a missing, unreadable, empty or garbled CA file stops the start, naming the file and the setting', () => {
    const notPem = join(dir, 'not-pem.txt');
    writeFileSync(notPem, 'hello\n');
    const garbled = join(dir, 'garbled.pem');
    writeFileSync(garbled, '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n');
    for (const [file, why] of [[join(dir, 'absent.pem'), /cannot be read: ENOENT/], [dir, /cannot be read: EISDIR/], [notPem, /holds no PEM certificate/], [garbled, /certificate 1 of 1 is not a valid X\.509/]] as const) {
      assert.throws(
        () => createUpstream(settings(file)),
        (err: unknown) => err instanceof ConfigError && /CORE_CA_FILE/.test(err.message) && err.message.includes(file) && why.test(err.message),
        file,
      );
    }
  });

  test('a URL with credentials, a query or a dot segment in its base path stops the start', () => {
    for (const url of ['https://user:secret@platform:3443', 'https://platform:3443/iap?x=1', 'https://platform:3443/iap/..%2fadmin', 'https://platform:3443/iap/%252e%252e']) {
      assert.throws(() => createUpstream({ url, caFile: null, tlsVerify: true, timeoutMs: 1000 }), ConfigError, url);
    }
  });
});
