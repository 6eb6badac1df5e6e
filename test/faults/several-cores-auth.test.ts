/**
 * Two core processes on one SQLite file, as two cores behind a load balancer,
 * and a gateway in front of the second. What one core is told about an
 * account (disabled, its password changed, a role taken away, a session
 * ended) is honoured by the other, and by the gateway, within the bounds
 * docs/auth.md states; failed logins are counted by both together, and a
 * lockout outlives a killed core.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { roleId } from '../../kernel/store/ids.ts';
import { crash, spawnCore, spawnService } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { ADMIN_PASSWORD, figure, login, tempDir, timed } from './support.ts';
import { timingSleep } from '../helpers/wait.ts';

/** docs/auth.md: a core trusts what it cached of an account 2 s; a gateway adds its own 3 s. */
const CORE_BOUND_MS = 2_000;
const GATEWAY_BOUND_MS = 5_000;
/** Two cores shared by several test runs: a poll can be late by this much without the bound being broken. */
const SLACK_MS = 1_500;
const POLL_MS = 100;

const coreData = tempDir('several-cores');
const gatewayData = tempDir('several-cores-gateway');
const procs: CoreProcess[] = [];
let coreA: CoreProcess;
let coreB: CoreProcess;
let gateway: CoreProcess;
let adminToken: string;

// The per-address limit is raised: every call here comes from 127.0.0.1, and only the per-username one is under test.
const env = { DATA_DIR: coreData.path, ADMIN_PASSWORD, AUTH_MAX_FAILED_LOGINS: '5', AUTH_MAX_FAILED_LOGINS_PER_ADDRESS: '1000' };

before(async () => {
  coreA = await spawnCore(env);
  procs.push(coreA);
  coreB = await spawnCore(env);
  procs.push(coreB);
  gateway = await spawnService('gateway/src/main.ts', { DATA_DIR: gatewayData.path, PORT: '0', CORE_URL: coreB.url });
  procs.push(gateway);
  adminToken = await login(coreA.url);
});

after(async () => {
  for (const p of procs) await crash(p);
  coreData.remove();
  gatewayData.remove();
});

const basic = (username: string, password: string): string => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

async function call(url: string, authorization: string, method = 'GET'): Promise<number> {
  return (await timed(url, { method, headers: { authorization }, timeoutMs: 5000 })).status;
}

/** Through core A, as the administrator; fails the test unless it succeeds. */
async function admin(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await timed(`${coreA.url}${path}`, { method, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body), timeoutMs: 10_000 });
  assert.equal(res.status, 200, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
}

/** A local account allowed to read roles, so it can call `GET /authorization/roles` and its legacy form. */
async function makeAccount(username: string, password: string): Promise<string> {
  const body = await admin('POST', '/authorization/accounts', { username, password, assignedRoles: [{ roleId: roleId('Authorization', 'admin') }] });
  return String((body['data'] as { _id: unknown })._id);
}

/** How long after `since` a poll of `probe` first answered `status`; fails once `limit` has passed. */
async function answersWithin(probe: () => Promise<number>, status: number, since: number, limit: number, what: string): Promise<number> {
  for (;;) {
    const got = await probe();
    const elapsed = performance.now() - since;
    if (got === status) return elapsed;
    if (elapsed > limit) assert.fail(`${what}: still ${got} ${elapsed.toFixed(0)} ms after the change, not ${status} (bound ${limit} ms with slack)`);
    await timingSleep(POLL_MS, 'a timing test: it measures how long a change made through one core takes to reach another core process');
  }
}

const roles = '/authorization/roles?limit=1';
const legacyRoles = '/user-management/roles?limit=1';

test('an account disabled through one core is refused by the other core and by a gateway in front of it within the bound', { timeout: 60_000 }, async () => {
  const id = await makeAccount('dora', 'dora-password-1');
  const auth = basic('dora', 'dora-password-1');
  // Both remember dora as allowed right before the change, the worst case for a cache.
  assert.equal(await call(`${coreB.url}${roles}`, auth), 200);
  assert.equal(await call(`${gateway.url}${legacyRoles}`, auth), 200);
  await admin('PATCH', `/authorization/accounts/${id}`, { inactive: true });
  const changed = performance.now();
  const [core, viaGateway] = await Promise.all([
    answersWithin(() => call(`${coreB.url}${roles}`, auth), 401, changed, CORE_BOUND_MS + SLACK_MS, 'core B, dora disabled'),
    answersWithin(() => call(`${gateway.url}${legacyRoles}`, auth), 401, changed, GATEWAY_BOUND_MS + SLACK_MS, 'gateway, dora disabled'),
  ]);
  figure('disabled account refused by the other core after', `${core.toFixed(0)} ms`);
  figure('disabled account refused through the gateway after', `${viaGateway.toFixed(0)} ms`);
});

test('a password changed through one core: the old one is refused by the other core and by a gateway in front of it within the bound, the new one accepted', { timeout: 60_000 }, async () => {
  const id = await makeAccount('pete', 'pete-password-1');
  const old = basic('pete', 'pete-password-1');
  assert.equal(await call(`${coreB.url}${roles}`, old), 200);
  assert.equal(await call(`${gateway.url}${legacyRoles}`, old), 200);
  await admin('PUT', `/authorization/accounts/${id}/password`, { password: 'pete-password-2' });
  const changed = performance.now();
  const [core, viaGateway] = await Promise.all([
    answersWithin(() => call(`${coreB.url}${roles}`, old), 401, changed, CORE_BOUND_MS + SLACK_MS, 'core B, old password'),
    answersWithin(() => call(`${gateway.url}${legacyRoles}`, old), 401, changed, GATEWAY_BOUND_MS + SLACK_MS, 'gateway, old password'),
  ]);
  figure('old password refused by the other core after', `${core.toFixed(0)} ms`);
  figure('old password refused through the gateway after', `${viaGateway.toFixed(0)} ms`);
  assert.equal(await call(`${coreB.url}${roles}`, basic('pete', 'pete-password-2')), 200);
});

test('a role taken away through one core is refused by the other core within the bound', { timeout: 60_000 }, async () => {
  const id = await makeAccount('rita', 'rita-password-1');
  const auth = basic('rita', 'rita-password-1');
  assert.equal(await call(`${coreB.url}${roles}`, auth), 200);
  await admin('PATCH', `/authorization/accounts/${id}`, { assignedRoles: [] });
  const changed = performance.now();
  const core = await answersWithin(() => call(`${coreB.url}${roles}`, auth), 403, changed, CORE_BOUND_MS + SLACK_MS, 'core B, role taken away');
  figure('role taken away honoured by the other core after', `${core.toFixed(0)} ms`);
});

test('a logout through one core ends the token on the other core and through a gateway in front of it within the bound', { timeout: 60_000 }, async () => {
  await makeAccount('lou', 'lou-password-1');
  const token = await (async () => {
    const res = await timed(`${coreA.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'lou', password: 'lou-password-1' } }) });
    assert.equal(res.status, 200);
    return String(res.body);
  })();
  const auth = `Bearer ${token}`;
  assert.equal(await call(`${coreB.url}${roles}`, auth), 200);
  assert.equal(await call(`${gateway.url}${legacyRoles}`, auth), 200);
  assert.equal(await call(`${coreA.url}/logout`, auth, 'POST'), 200);
  const changed = performance.now();
  const [core, viaGateway] = await Promise.all([
    answersWithin(() => call(`${coreB.url}${roles}`, auth), 401, changed, CORE_BOUND_MS + SLACK_MS, 'core B, logged out'),
    answersWithin(() => call(`${gateway.url}${legacyRoles}`, auth), 401, changed, GATEWAY_BOUND_MS + SLACK_MS, 'gateway, logged out'),
  ]);
  figure('logout honoured by the other core after', `${core.toFixed(0)} ms`);
  figure('logout honoured through the gateway after', `${viaGateway.toFixed(0)} ms`);
});

test('failed logins split between two cores lock the username out on both, and the lockout outlives a killed core', { timeout: 60_000 }, async () => {
  await makeAccount('vic', 'vic-password-1');
  const attempt = async (core: CoreProcess, password: string) =>
    timed(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'vic', password } }), timeoutMs: 10_000 });
  // Five failures, the limit, no more than three on either core.
  for (const core of [coreA, coreB, coreA, coreB, coreA]) assert.equal((await attempt(core, 'wrong')).status, 401);
  const locked = await attempt(coreB, 'vic-password-1');
  assert.equal(locked.status, 429, 'core B locks vic out after failures it saw only two of, even with the right password');
  assert.ok(Number(locked.headers?.get('retry-after')) > 0, 'with Retry-After');
  await crash(coreA);
  coreA = await spawnCore({ ...env, CORE_PORT: new URL(coreA.url).port });
  procs.push(coreA);
  assert.equal((await attempt(coreA, 'vic-password-1')).status, 429, 'a core killed and started again still locks vic out');
});
