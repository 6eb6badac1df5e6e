/**
 * Issue 26, finding 6: a page of another origin (another port of the host, a
 * sibling subdomain: "same-site", which SameSite=Lax lets through) could
 * make a logged-in browser start jobs with a form post carrying the token
 * cookie. Now a write authenticated by the cookie must come from our own
 * origin or send JSON (which another origin cannot without a CORS
 * preflight we never grant), on the core, through the gateway's
 * pass-through and on legacy operations; Bearer is not concerned. The
 * cookie is Secure whenever the client reached us over TLS
 * (docs/auth.md, "Cross-site requests").
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD, startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { createWorkflow, newVariable, workflow } from '../helpers/engine.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { openTestStore } from '../helpers/stores.ts';
import { send, tokenCookie } from '../helpers/from-address.ts';

const WORKFLOW = 'cross-site target';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** Another port of the same host: same-site, so SameSite=Lax sends the cookie. */
const OTHER_PORT = 'http://127.0.0.1:1';

let core: RunningCore;
let gw: RunningGateway;
let cookie: string;
let jobId: string;
before(async () => {
  core = await startCore(await openTestStore());
  gw = await startGateway(core.url);
  await createWorkflow(core, workflow(WORKFLOW, { a1: newVariable('done', true) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  const login = await send(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password: ADMIN_PASSWORD } }) });
  assert.equal(login.status, 200);
  cookie = `token=${login.body as string}`;
  const started = await core.request('/operations-manager/jobs/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ workflow: WORKFLOW }) });
  jobId = (started.body as { data: { _id: string } }).data._id;
});
after(async () => {
  await gw.close();
  await core.close();
});

async function jobCount(): Promise<number> {
  return core.store.collection('jobs').count(null);
}

function assertRefused(res: Awaited<ReturnType<typeof send>>, why: RegExp): void {
  assert.equal(res.status, 403, res.text);
  assert.equal(res.headers['x-error-code'], 'FORBIDDEN');
  const message = typeof res.body === 'string' ? res.body : (res.body as { message: string }).message;
  assert.match(message, why);
}

test('a cross-site form post with the cookie is refused 403 on the core and through the gateway, and starts nothing', async () => {
  const before = await jobCount();
  for (const base of [core.url, gw.url]) {
    for (const headers of [{ origin: OTHER_PORT, 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }, {}] as Array<Record<string, string>>) {
      const res = await send(`${base}/operations-manager/jobs/start`, { method: 'POST', headers: { ...FORM, cookie, ...headers }, body: `workflow=${encodeURIComponent(WORKFLOW)}` });
      assertRefused(res, /Cross-site request refused/);
    }
    // text/plain is what a no-CORS fetch may send; the guard reads headers only, so the body is never looked at.
    const plain = await send(`${base}/operations-manager/jobs/start`, { method: 'POST', headers: { 'content-type': 'text/plain', cookie, origin: OTHER_PORT }, body: JSON.stringify({ workflow: WORKFLOW }) });
    assertRefused(plain, /Cross-site request refused/);
  }
  const legacy = await send(`${gw.url}/workflow_engine/startJobWithOptions/${encodeURIComponent(WORKFLOW)}`, { method: 'POST', headers: { ...FORM, cookie, origin: OTHER_PORT, 'sec-fetch-site': 'same-site' }, body: 'options%5Bdescription%5D=csrf' });
  assertRefused(legacy, /Cross-site request refused/);
  assert.equal(typeof legacy.body, 'string', 'the legacy shape: a plain JSON string');
  assert.equal(await jobCount(), before, 'no job was started');
});

test('a same-origin write with the cookie is accepted, on the core, through the gateway and on a legacy operation', async () => {
  const watch = await send(`${core.url}/operations-manager/jobs/${jobId}/watch`, { method: 'POST', headers: { cookie, origin: core.url } });
  assert.equal(watch.status, 200, watch.text);
  // Through the gateway the core compares with the origin the client reached (X-Forwarded-Host and -Proto from the gateway).
  const viaGateway = await send(`${gw.url}/operations-manager/jobs/${jobId}/unwatch`, { method: 'POST', headers: { cookie, origin: gw.url } });
  assert.equal(viaGateway.status, 200, viaGateway.text);
  const fetchMetadata = await send(`${gw.url}/operations-manager/jobs/${jobId}/watch`, { method: 'POST', headers: { cookie, 'sec-fetch-site': 'same-origin' } });
  assert.equal(fetchMetadata.status, 200, fetchMetadata.text);
  const legacy = await send(`${gw.url}/workflow_engine/job/${jobId}/watch`, { method: 'PUT', headers: { cookie, origin: gw.url } });
  assert.equal(legacy.status, 200, legacy.text);
  // The core's origin is not the gateway's: a page on the core's port is another origin to the gateway.
  assertRefused(await send(`${gw.url}/operations-manager/jobs/${jobId}/watch`, { method: 'POST', headers: { cookie, origin: core.url } }), /Cross-site/);
});

test('JSON with the cookie is accepted from anywhere: another origin cannot send it without a preflight', async () => {
  const res = await send(`${gw.url}/operations-manager/jobs/start`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, origin: OTHER_PORT }, body: JSON.stringify({ workflow: WORKFLOW }) });
  assert.equal(res.status, 200, res.text);
});

test('with the cookie, form bodies are taken only where the route declares them, even from our own origin', async () => {
  const start = await send(`${core.url}/operations-manager/jobs/start`, { method: 'POST', headers: { ...FORM, cookie, origin: core.url }, body: `workflow=${encodeURIComponent(WORKFLOW)}` });
  assertRefused(start, /Form bodies .* are not taken/);
  const login = await send(`${core.url}/login`, { method: 'POST', headers: { ...FORM, cookie, origin: core.url }, body: `username=admin&password=${encodeURIComponent(ADMIN_PASSWORD)}` });
  assert.equal(login.status, 200, `POST /login declares forms: ${login.text}`);
});

test('Bearer callers are not concerned: a form post from any origin with a bearer token starts the job', async () => {
  const token = core.adminToken;
  const res = await send(`${core.url}/operations-manager/jobs/start`, { method: 'POST', headers: { ...FORM, authorization: `Bearer ${token}`, cookie, origin: OTHER_PORT }, body: `workflow=${encodeURIComponent(WORKFLOW)}` });
  assert.equal(res.status, 200, res.text);
  const legacy = await send(`${gw.url}/workflow_engine/startJobWithOptions/${encodeURIComponent(WORKFLOW)}`, { method: 'POST', headers: { ...FORM, authorization: `Bearer ${token}`, origin: OTHER_PORT }, body: 'options%5Bdescription%5D=by%20script' });
  assert.equal(legacy.status, 200, legacy.text);
  const byQuery = await send(`${gw.url}/operations-manager/jobs/${jobId}/watch?token=${token}`, { method: 'POST', headers: { cookie, origin: OTHER_PORT } });
  assert.equal(byQuery.status, 200, `?token= wins over the cookie, and is not ambient: ${byQuery.text}`);
});

test('the cookie is Secure when a trusted proxy reports TLS, and not on the word of an untrusted client', async () => {
  const body = JSON.stringify({ user: { username: 'admin', password: ADMIN_PASSWORD } });
  const headers = { 'content-type': 'application/json', 'x-forwarded-proto': 'https' };
  const trusted = tokenCookie((await send(`${core.url}/login`, { method: 'POST', from: '127.0.0.1', headers, body })).headers);
  assert.match(String(trusted), /;\s*secure/i, `from the trusted loopback proxy: ${trusted}`);
  const untrusted = tokenCookie((await send(`${core.url}/login`, { method: 'POST', from: '127.0.0.5', headers, body })).headers);
  assert.ok(untrusted && !/;\s*secure/i.test(untrusted), `from 127.0.0.5, X-Forwarded-Proto is not believed: ${untrusted}`);
  const plain = tokenCookie((await send(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).headers);
  assert.ok(plain && /httponly/i.test(plain) && /samesite=lax/i.test(plain) && !/;\s*secure/i.test(plain), String(plain));
});

test('the cookie is Secure when the core itself is reached over TLS', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cross-site-tls-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  const server: Server = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, core.core.app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const res = await send(`${url}/login`, { method: 'POST', from: '127.0.0.5', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password: ADMIN_PASSWORD } }) });
  assert.equal(res.status, 200, res.text);
  assert.match(String(tokenCookie(res.headers)), /;\s*secure/i);
  // Over TLS the origin is https: a same-origin write says so.
  const watch = await send(`${url}/operations-manager/jobs/${jobId}/watch`, { method: 'POST', headers: { cookie: `token=${res.body as string}`, origin: url } });
  assert.equal(watch.status, 200, watch.text);
});
