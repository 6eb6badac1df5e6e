/**
 * Every way the core's routes end a session, attacked the way a cache would
 * let through: the token is used (and so cached) right before it is ended,
 * and again right after. Each must be refused at once, not when the session
 * cache's window has passed (core/src/auth/sessions.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';

let core: RunningCore;
let store: Store;

before(async () => {
  store = await openTestStore();
  core = await startCore(store);
});
after(async () => {
  await core.close();
  await store.close();
});

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await core.request(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  assert.equal(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
}

async function account(username: string): Promise<{ id: string; token: string }> {
  const created = await admin('POST', '/authorization/accounts', { account: { username, password: `${username}-password` } });
  return { id: String((created['data'] as { _id: unknown })._id), token: await login(username) };
}

async function login(username: string): Promise<string> {
  const res = await request(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username, password: `${username}-password` } }) });
  assert.equal(res.status, 200);
  return String(res.body);
}

const whoami = async (token: string): Promise<number> => (await core.request('/whoami', { token })).status;

test('a token is refused right after its logout', async () => {
  const { token } = await account('lou');
  assert.equal(await whoami(token), 200);
  assert.equal((await core.request('/logout', { method: 'POST', token })).status, 200);
  assert.equal(await whoami(token), 401);
});

test('a token is refused right after its account is made inactive', async () => {
  const { id, token } = await account('ina');
  assert.equal(await whoami(token), 200);
  await admin('PATCH', `/authorization/accounts/${id}`, { inactive: true });
  assert.equal(await whoami(token), 401);
});

test("a token is refused right after its account's password is changed by someone else; the changer's own session goes on", async () => {
  const { id, token } = await account('pat');
  assert.equal(await whoami(token), 200);
  await admin('PUT', `/authorization/accounts/${id}/password`, { password: 'pat-password-2' });
  assert.equal(await whoami(token), 401);
  assert.equal(await whoami(core.adminToken), 200);
});

test("a service account's token is refused right after the service account is deleted", async () => {
  const created = (await admin('POST', '/oauth/serviceAccounts', { name: 'robot' }))['data'] as { client_id: string; client_secret: string };
  const issued = await request(`${core.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: created.client_id, client_secret: created.client_secret }).toString(),
  });
  const token = (issued.body as { access_token: string }).access_token;
  assert.equal(await whoami(token), 200);
  await admin('DELETE', `/oauth/serviceAccounts/${created.client_id}`);
  assert.equal(await whoami(token), 401);
});

test('calls racing a logout: any may be answered, but every call after the logout has answered is refused', async () => {
  const { token } = await account('rae');
  assert.equal(await whoami(token), 200);
  const racing = Array.from({ length: 20 }, () => whoami(token));
  const out = core.request('/logout', { method: 'POST', token });
  const more = Array.from({ length: 20 }, () => whoami(token));
  assert.equal((await out).status, 200);
  for (const status of await Promise.all([...racing, ...more])) assert.ok(status === 200 || status === 401, `got ${status}`);
  const after = await Promise.all(Array.from({ length: 20 }, () => whoami(token)));
  assert.deepEqual(new Set(after), new Set([401]));
});
