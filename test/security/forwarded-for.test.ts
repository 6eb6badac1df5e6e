/**
 * Issue 26, finding 3: behind the gateway every client had the gateway's
 * address, so twenty-one failed logins from one client locked every user
 * out. Now the core believes X-Forwarded-For only from trusted proxies (the
 * gateway on loopback), takes the right-most untrusted address of the chain,
 * and counts that client; a locked-out legacy caller gets 429 with
 * Retry-After in the legacy shape (docs/auth.md, "Forwarded addresses").
 * Real core and gateway on 127.0.0.1; attacker and victim are clients bound
 * to other loopback addresses.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD, startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { openTestStore } from '../helpers/stores.ts';
import { send } from '../helpers/from-address.ts';

/** Failed logins from one address before it is locked out (AUTH_MAX_FAILED_LOGINS_PER_ADDRESS). */
const PER_ADDRESS = 3;
const VICTIM = '127.0.0.9';
const json = { 'content-type': 'application/json' };
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let core: RunningCore;
let gw: RunningGateway;
before(async () => {
  // The username limit is out of the way: only the address is counted here.
  core = await startCore(await openTestStore(), { AUTH_MAX_FAILED_LOGINS_PER_ADDRESS: String(PER_ADDRESS), AUTH_MAX_FAILED_LOGINS: '1000' });
  gw = await startGateway(core.url);
});
after(async () => {
  await gw.close();
  await core.close();
});

function login(base: string, from: string, password: string, headers: Record<string, string> = {}): ReturnType<typeof send> {
  return send(`${base}/login`, { method: 'POST', from, headers: { ...json, ...headers }, body: JSON.stringify({ user: { username: 'admin', password } }) });
}

/** Fails PER_ADDRESS logins from `from`, each with the headers `spoof(i)` gives. */
async function failLogins(base: string, from: string, spoof: (i: number) => Record<string, string> = () => ({})): Promise<void> {
  for (let i = 0; i < PER_ADDRESS; i += 1) {
    const res = await send(`${base}/login`, { method: 'POST', from, headers: { ...json, ...spoof(i) }, body: JSON.stringify({ user: { username: `nobody-${from}-${i}`, password: 'wrong' } }) });
    assert.equal(res.status, 401, res.text);
  }
}

test('failed logins from one client through the gateway lock out that client, not every other client of the gateway', async () => {
  const attacker = '127.0.0.5';
  await failLogins(gw.url, attacker);
  const locked = await login(gw.url, attacker, ADMIN_PASSWORD);
  assert.equal(locked.status, 429, 'the attacker is locked out');
  assert.match(String(locked.headers['retry-after']), /^\d+$/);
  const victim = await login(gw.url, VICTIM, ADMIN_PASSWORD);
  assert.equal(victim.status, 200, `another client of the gateway logs in: ${victim.text}`);
  const victimBasic = await send(`${gw.url}/whoami`, { from: VICTIM, headers: { authorization: basic('admin', ADMIN_PASSWORD) } });
  assert.equal(victimBasic.status, 200, `and its Basic credentials work: ${victimBasic.text}`);
});

test('an X-Forwarded-For the attacker sends to the gateway does not choose the address counted', async () => {
  const attacker = '127.0.0.15';
  // A new address each time would escape the count if the left-most address were believed; the victim's would lock them out.
  await failLogins(gw.url, attacker, (i) => ({ 'x-forwarded-for': i === 0 ? VICTIM : `203.0.113.${i}` }));
  const locked = await login(gw.url, attacker, ADMIN_PASSWORD, { 'x-forwarded-for': '198.51.100.7' });
  assert.equal(locked.status, 429, `the attacker is counted as ${attacker} whatever it claims: ${locked.text}`);
  const victim = await login(gw.url, VICTIM, ADMIN_PASSWORD);
  assert.equal(victim.status, 200, `the address the attacker named is not locked: ${victim.text}`);
});

test('the core counts a direct caller from an untrusted address as its peer, whatever X-Forwarded-For it sends', async () => {
  const attacker = '127.0.0.25';
  await failLogins(core.url, attacker, () => ({ 'x-forwarded-for': VICTIM }));
  const locked = await login(core.url, attacker, ADMIN_PASSWORD, { 'x-forwarded-for': '127.0.0.33' });
  assert.equal(locked.status, 429, locked.text);
  assert.equal((await login(core.url, VICTIM, ADMIN_PASSWORD)).status, 200);
  assert.equal((await login(core.url, '127.0.0.33', ADMIN_PASSWORD)).status, 200);
});

test("the core's access log names the client behind the gateway", async () => {
  const from = '127.0.0.45';
  const id = 'forwarded-access-log';
  const res = await send(`${gw.url}/health/live`, { from, headers: { 'x-request-id': id, 'x-forwarded-for': '192.0.2.1' } });
  assert.equal(res.status, 200);
  const line = core.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['message'] === 'request' && l['requestId'] === id);
  assert.ok(line, 'the core logged the request');
  assert.equal(line['client'], from);
});

test('a legacy call while its client is locked out answers 429 in the legacy shape, with Retry-After', async () => {
  const attacker = '127.0.0.35';
  await failLogins(gw.url, attacker);
  // Still guessing, now through a legacy operation. (A Basic credential the core verified within the last
  // minute is not checked again, so the right password would not show the lockout here.)
  const res = await send(`${gw.url}/workflow_engine/getJob/0000000000000000000000a1`, { from: attacker, headers: { authorization: basic('admin', 'still-guessing') } });
  assert.equal(res.status, 429, res.text);
  assert.match(String(res.headers['retry-after']), /^\d+$/);
  assert.ok(Number(res.headers['retry-after']) > 0);
  assert.equal(typeof res.body, 'string', 'a plain JSON string, as legacy errors are');
  assert.match(res.body as string, /Too many failed logins/);
  assert.ok(res.headers['deprecation'], 'still a legacy answer');
  assert.equal(res.headers['x-error-code'], 'TOO_MANY_REQUESTS');
  const victim = await send(`${gw.url}/workflow_engine/getJob/0000000000000000000000a1`, { from: VICTIM, headers: { authorization: basic('admin', ADMIN_PASSWORD) } });
  assert.notEqual(victim.status, 429, 'another legacy client is not locked out');
});

test("failed Basic credentials on the gateway's own routes are counted against the client, not the gateway", async () => {
  const attacker = '127.0.0.55';
  for (let i = 0; i < PER_ADDRESS; i += 1) {
    const res = await send(`${gw.url}/gateway/audit/report`, { from: attacker, headers: { authorization: basic(`nobody-report-${i}`, 'wrong') } });
    assert.equal(res.status, 401, res.text);
  }
  const locked = await login(gw.url, attacker, ADMIN_PASSWORD);
  assert.equal(locked.status, 429, `the attacker's own address is locked: ${locked.text}`);
  const report = await send(`${gw.url}/gateway/audit/report`, { from: attacker, headers: { authorization: basic('nobody-report-x', 'wrong') } });
  assert.equal(report.status, 429, report.text);
  assert.equal((await login(gw.url, '127.0.0.1', ADMIN_PASSWORD)).status, 200, "the gateway's own address is not");
});

test("the core's log lines of a rewritten legacy call carry the request id the gateway answered with", async () => {
  const from = '127.0.0.46';
  const res = await send(`${gw.url}/workflow_engine/getJob/no-such-job`, { from, headers: { authorization: `Bearer ${core.adminToken}`, 'x-request-id': 'legacy-call-id' } });
  assert.ok(res.headers['deprecation'], 'a rewritten legacy call');
  const id = res.headers['x-request-id'];
  assert.equal(id, 'legacy-call-id');
  const lines = core.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['message'] === 'request' && l['requestId'] === id);
  assert.ok(lines.length > 0, 'the core logged the call made in the legacy call\'s place under its id');
  assert.ok(lines.every((l) => l['client'] === from), 'and named the client behind the gateway');
});

test("the core's log line of the gateway's own role check carries the request id the gateway answered with", async () => {
  const res = await send(`${gw.url}/gateway/audit/report`, { from: '127.0.0.47', headers: { authorization: `Bearer ${core.adminToken}`, 'x-request-id': 'audit-report-id' } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers['x-request-id'], 'audit-report-id');
  const lines = core.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['message'] === 'request' && l['requestId'] === 'audit-report-id');
  assert.ok(lines.length > 0, 'the core logged the whoami check under the id');
});

test('a malformed request id a legacy caller sends never reaches the core: the core logs the id the gateway made instead', async () => {
  const sent = `${'x'.repeat(200)} <script>`;
  const res = await send(`${gw.url}/workflow_engine/getJob/no-such-job`, { from: '127.0.0.48', headers: { authorization: `Bearer ${core.adminToken}`, 'x-request-id': sent } });
  const id = res.headers['x-request-id'];
  assert.ok(typeof id === 'string' && /^[0-9a-f-]{36}$/.test(id), `the gateway answered with an id of its own: ${String(id)}`);
  const logs = core.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.ok(logs.some((l) => l['message'] === 'request' && l['requestId'] === id), 'the core logged the call under the gateway\'s id');
  assert.ok(!core.logs.some((l) => l.includes('<script>')), 'the caller\'s text is nowhere in the core\'s log');
});
