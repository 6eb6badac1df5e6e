/**
 * Every credential form on every route: each route the core mounts (directly
 * and through the gateway's pass-through) and each legacy operation of the
 * mapping table, called by a valid administrator with each form the platform
 * accepts (docs/auth.md): Basic, Bearer, the `token` cookie and the `token`
 * query parameter, the token bare or in the JSON quotes of the login answer
 * (`"abc"`, percent-encoded `%22abc%22` where a URL or cookie carries it).
 * None may answer 401, or 400 naming `token`: a credential is never read as
 * a parameter. An inspecting proxy between the gateway and the core proves
 * that each rewritten legacy call carries the credential in the form the
 * caller used (a `token` parameter only when the caller sent one, never a
 * header made from it: docs/real-platform.md, "Credentials").
 * Routes are enumerated from what the apps mount, as anonymous-calls.test.ts does.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { openTestStore } from '../helpers/stores.ts';
import { compareReleases } from '../../gateway/src/releases.ts';
import { ADMIN_PASSWORD, request, startCore } from '../helpers/core.ts';
import { CREDENTIAL_FORMS as FORMS } from '../helpers/credential-forms.ts';
import type { CredentialForm as Form } from '../helpers/credential-forms.ts';
import type { JsonResponse, RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';

/** What reached the core from the gateway, as the core's socket saw it. */
interface Seen {
  readonly url: string;
  readonly authorization: string | undefined;
}

/** A transparent proxy in front of the core that remembers every request line. */
async function inspectingProxy(target: string, seen: Seen[]): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const upstream = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let core: RunningCore;
let gw: RunningGateway;
let proxy: { url: string; close(): Promise<void> };
const seen: Seen[] = [];
let loginBody = '';
let token = '';
before(async () => {
  core = await startCore((await openTestStore()));
  proxy = await inspectingProxy(core.url, seen);
  gw = await startGateway(proxy.url);
  // The token exactly as a client gets it: the raw body of POST /login, a JSON string.
  const res = await fetch(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
  loginBody = await res.text();
  assert.equal(res.status, 200, loginBody);
  token = JSON.parse(loginBody) as string;
});
after(async () => {
  await gw.close();
  await proxy.close();
  await core.close();
});

function concrete(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => (name === 'collectionName' ? 'jobs' : '0000000000000000000000a1'));
}

/** A fresh session for routes that end the caller's own (POST /logout), so the shared token lives on. */
async function tokenFor(method: string, path: string): Promise<string> {
  if (!(method === 'POST' && path === '/logout')) return token;
  const admin = await core.core.auth.findAccount('admin');
  return (await core.core.auth.sessions.start(admin!['_id'] as string, 'account', 'login')).token;
}

async function call(base: string, method: string, path: string, form: Form, bare: string): Promise<JsonResponse> {
  const { headers, query } = form.apply(bare);
  const url = `${base}${concrete(path)}${query ? `${path.includes('?') ? '&' : '?'}${query}` : ''}`;
  return request(url, { method, headers: { 'content-type': 'application/json', ...headers }, ...(method === 'GET' || method === 'DELETE' || method === 'HEAD' ? {} : { body: '{}' }) });
}

/** A refusal of the credential itself: 401, or a 4xx/5xx whose message names `token` as a parameter. */
function refusal(res: JsonResponse): string | null {
  if (res.status === 401) return `401 ${JSON.stringify(res.body)}`;
  const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
  if (res.status >= 400 && /\btoken\b/i.test(text ?? '')) return `${res.status} names token: ${text}`;
  return null;
}

test('the login answer is a JSON string: the quoted forms below are what a client that keeps the raw body sends', () => {
  assert.equal(loginBody, JSON.stringify(token));
  assert.match(token, /^[^"]+$/);
});

test('every core route accepts every credential form of a valid account, directly and through the gateway', async () => {
  const routes = core.core.routes;
  assert.ok(routes.length > 100, `the core mounts ${routes.length} routes`);
  const wrong: string[] = [];
  for (const route of routes) {
    for (const form of FORMS) {
      for (const [where, base] of [['core', core.url], ['gateway', gw.url]] as const) {
        const res = await call(base, route.method, route.path, form, await tokenFor(route.method, route.path));
        const bad = refusal(res);
        if (bad) wrong.push(`${route.method} ${route.path} via ${where} with ${form.name}: ${bad}`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

test("the gateway's own routes accept every credential form", async () => {
  for (const form of FORMS) {
    for (const path of ['/gateway/audit/report', '/gateway/audit/report?format=csv']) {
      const res = await call(gw.url, 'GET', path, form, token);
      assert.equal(res.status, 200, `${path} with ${form.name}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`);
    }
  }
});

test('every legacy operation accepts every credential form, and each rewritten call carries it in the form the caller used', async () => {
  const release = core.config.platform.release;
  assert.ok(gw.gateway.entries.length >= 100);
  const wrong: string[] = [];
  const converted: string[] = [];
  let queryCalls = 0;
  for (const entry of gw.gateway.entries) {
    const removed = compareReleases(release, entry.removed) >= 0;
    for (const form of FORMS) {
      seen.length = 0;
      const res = await call(gw.url, entry.legacy.method, entry.legacy.path, form, token);
      const what = `${entry.id} (${entry.legacy.method} ${entry.legacy.path}) with ${form.name}`;
      const bad = refusal(res);
      if (removed ? res.status !== 410 : bad) wrong.push(`${what}: ${bad ?? res.status}`);
      // Never converted (decision 30): a query token stays one query token, the caller's, and becomes no header;
      // any other form puts no token in the query. (A call refused on its body before any rewrite asks the core nothing.)
      const sent = form.apply(token).query;
      const expected = sent === null ? [] : new URLSearchParams(sent).getAll('token');
      if (sent !== null && !removed) queryCalls += seen.length;
      for (const s of seen) {
        const tokens = new URLSearchParams(s.url.split('?')[1] ?? '').getAll('token');
        if (tokens.join('\n') !== expected.join('\n')) converted.push(`${what}: the core received ${s.url.slice(0, 120)}`);
        if (sent !== null && s.authorization !== undefined) converted.push(`${what}: ${s.url.slice(0, 80)} carried an Authorization header the caller did not send`);
      }
    }
  }
  assert.deepEqual(wrong, [], 'no legacy operation refuses a valid credential of any form');
  assert.deepEqual(converted, [], 'every call the gateway makes carries the credential in the caller\'s form, and only that');
  assert.ok(queryCalls > 100, `legacy calls with ?token= reached the core ${queryCalls} times`);
});

test('a wrong token refused in the quoted form is refused like the bare one, so quotes open nothing', async () => {
  for (const form of FORMS.filter((f) => f.name !== 'Basic')) {
    const res = await call(core.url, 'GET', '/whoami', form, 'f'.repeat(64));
    assert.equal(res.status, 401, form.name);
  }
  const half = await request(`${core.url}/whoami?token=${encodeURIComponent(`"${token}`)}`);
  assert.equal(half.status, 401, 'an opening quote alone is part of the token, which then matches none');
});

test('the token parameter is removed from the query however its name is written, and the rest of the query still counts', async () => {
  const encodedName = await request(`${core.url}/authorization/accounts?limit=1&tok%65n=${token}`);
  assert.equal(encodedName.status, 200, JSON.stringify(encodedName.body));
  assert.equal((encodedName.body as { results: unknown[] }).results.length, 1, 'limit still applies');
  const search = await request(`${core.url}/operations-manager/jobs?token=${encodeURIComponent(JSON.stringify(token))}&limit=1&bogus=1`);
  assert.equal(search.status, 400, 'other unknown parameters are still refused');
  assert.deepEqual((search.body as { metadata: { errors: Array<{ parameter: string }> } }).metadata.errors.map((e) => e.parameter), ['bogus']);
});
