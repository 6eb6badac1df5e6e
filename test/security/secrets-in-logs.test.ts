/**
 * No secret reaches a log line. The core and the gateway log at their most
 * verbose level while callers log in, fail to log in, authenticate every way
 * the platform accepts (bearer, query token, cookie, Basic; the token bare or in the JSON quotes of the login answer), create accounts
 * and service accounts, call legacy operations and relay to orchestrators
 * (one of which refuses, so the relay logs its failure); then every captured
 * line of both services is searched for every secret used.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../kernel/logger.ts';
import { ADMIN_PASSWORD, request } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { NSO, NSO_PASSWORD, startRelayFixture } from '../core/relay/fixture.ts';
import type { RelayFixture } from '../core/relay/fixture.ts';

const WRONG_PASSWORD = 'wrong-password-3f9a1c';
const ACCOUNT_PASSWORD = 'new-account-password-77b2';
const CHANGED_PASSWORD = 'changed-password-c41e';

let f: RelayFixture;
let gw: RunningGateway;
const gatewayLogs: string[] = [];
before(async () => {
  f = await startRelayFixture({ LOG_LEVEL: 'debug' });
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      gatewayLogs.push(chunk.toString());
      done();
    },
  });
  gw = await startGateway(f.core.url, { LOG_LEVEL: 'debug' }, { logger: createLogger({ level: 'debug', service: 'gateway', stream }) });
});
after(async () => {
  await gw.close();
  await f.close();
});

const json = { 'content-type': 'application/json' };

async function login(username: string, password: string): Promise<{ status: number; token: string }> {
  const res = await request(`${gw.url}/login`, { method: 'POST', headers: json, body: JSON.stringify({ user: { username, password } }) });
  return { status: res.status, token: typeof res.body === 'string' ? res.body : '' };
}

test('no password, token, client secret or Basic credential appears in any log line of the core or the gateway', async () => {
  const secrets = new Map<string, string>([
    ['the administrator password', ADMIN_PASSWORD],
    ['a mistyped password', WRONG_PASSWORD],
    ['a new account password', ACCOUNT_PASSWORD],
    ['a changed password', CHANGED_PASSWORD],
    ['the orchestrator password', NSO_PASSWORD],
  ]);
  const admin = await login('admin', ADMIN_PASSWORD);
  assert.equal(admin.status, 200);
  secrets.set('a session token', admin.token);
  assert.equal((await login('admin', WRONG_PASSWORD)).status, 401);
  assert.equal((await login('nobody-here', WRONG_PASSWORD)).status, 401);
  const bearer = { ...json, authorization: `Bearer ${admin.token}` };

  const basic = Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64');
  secrets.set('a Basic credential', basic);
  const ways: RequestInit[] = [{ headers: { authorization: `Basic ${basic}` } }, { headers: { cookie: `token=${admin.token}` } }, { headers: bearer }];
  for (const init of ways) {
    assert.equal((await request(`${gw.url}/whoami`, init)).status, 200);
  }
  assert.equal((await request(`${gw.url}/whoami?token=${admin.token}`)).status, 200);
  // The token in the JSON quotes of the login answer, as a client keeping the raw body sends it.
  const quotedToken = encodeURIComponent(JSON.stringify(admin.token));
  secrets.set('a quoted, percent-encoded token', quotedToken);
  const quotedWays: Array<[string, Record<string, string>]> = [['', { authorization: `Bearer ${JSON.stringify(admin.token)}` }], ['', { cookie: `token=${quotedToken}` }], [`?token=${quotedToken}`, {}]];
  for (const [query, headers] of quotedWays) {
    assert.equal((await request(`${gw.url}/whoami${query}`, { headers })).status, 200);
  }
  assert.equal((await request(`${gw.url}/workflow_engine/getJob/0000000000000000000000a1?token=${quotedToken}`)).status, 500);
  assert.equal((await request(`${gw.url}/user-management/roles?token=${quotedToken}`)).status, 200);
  // Legacy operations carry the caller's credentials onward to the core.
  assert.equal((await request(`${gw.url}/workflow_engine/getJob/0000000000000000000000a1?token=${admin.token}`)).status, 500);
  assert.equal((await request(`${gw.url}/workflow_engine/getJob/0000000000000000000000a1`, { headers: { authorization: `Basic ${basic}` } })).status, 500);

  const created = await request(`${gw.url}/authorization/accounts`, { method: 'POST', headers: bearer, body: JSON.stringify({ account: { username: 'log-check', password: ACCOUNT_PASSWORD, firstname: 'Log' } }) });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const accountId = String(((created.body as { data?: { _id?: unknown } }).data ?? {})._id ?? (created.body as { _id?: unknown })._id);
  const changed = await request(`${gw.url}/authorization/accounts/${accountId}/password`, { method: 'PUT', headers: bearer, body: JSON.stringify({ password: CHANGED_PASSWORD }) });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  assert.equal((await login('log-check', CHANGED_PASSWORD)).status, 200);

  const service = await request(`${gw.url}/oauth/serviceAccounts`, { method: 'POST', headers: bearer, body: JSON.stringify({ name: 'log-check-service' }) });
  assert.equal(service.status, 200, JSON.stringify(service.body));
  const { client_id: clientId, client_secret: clientSecret } = (service.body as { data: { client_id: string; client_secret: string } }).data;
  secrets.set('a service account secret', clientSecret);
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const granted = await request(`${gw.url}/oauth/token`, { method: 'POST', headers: form, body: `grant_type=client_credentials&client_id=${clientId}&client_secret=${clientSecret}` });
  assert.equal(granted.status, 200, JSON.stringify(granted.body));
  secrets.set('a service account token', (granted.body as { access_token: string }).access_token);
  assert.equal((await request(`${gw.url}/oauth/token`, { method: 'POST', headers: form, body: `grant_type=client_credentials&client_id=${clientId}&client_secret=${WRONG_PASSWORD}` })).status, 401);

  // Relaying sends the orchestrator's password; the refused adapter makes the relay log a failure.
  const relay = (adapter: string): Promise<unknown> =>
    request(`${gw.url}/orchestrator_manager/restQuery/${encodeURIComponent(adapter)}`, { method: 'POST', headers: bearer, body: JSON.stringify({ params: { path: '/restconf/data/tailf-ncs:devices', accept: 'application/yang-data+json' } }) });
  await relay(NSO);
  await relay('closed');
  assert.equal((await request(`${gw.url}/logout`, { method: 'POST', headers: bearer })).status, 200);

  const lines = [...f.core.logs, ...gatewayLogs];
  assert.ok(f.core.logs.length > 20, `the core logged ${f.core.logs.length} lines`);
  assert.ok(gatewayLogs.length > 0, 'the gateway logged');
  for (const [what, secret] of secrets) {
    assert.ok(secret.length >= 8, `${what} is a real value`);
    const leaks = lines.filter((line) => line.includes(secret));
    assert.deepEqual(leaks, [], `${what} appears in the logs`);
  }
});
