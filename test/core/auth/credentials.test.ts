/**
 * Each credential form works and each wrong one gets 401 (docs/decisions.md D6 and
 * D7); refused logins never say whether the account exists, repeated
 * failures lock the username and the address out, and secrets stay out of the logs.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { ADMIN_PASSWORD, request, startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('credentials', () => {
  let core: RunningCore;
  let loginToken: string;
  before(async () => {
    core = await startCore((await openTestStore()), { AUTH_MAX_FAILED_LOGINS: '3', AUTH_MAX_FAILED_LOGINS_PER_ADDRESS: '50' });
    const res = await request(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password: ADMIN_PASSWORD } }) });
    loginToken = res.body as string;
  });
  after(() => core.close());

  const whoami = (init: RequestInit, query = '') => request(`${core.url}/whoami${query}`, init);

  test('POST /login answers the token as a JSON string and sets an HttpOnly token cookie', async () => {
    const res = await fetch(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password: ADMIN_PASSWORD } }) });
    const text = await res.text();
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const token = JSON.parse(text) as string;
    assert.match(token, /^[0-9a-f]{64}$/);
    const cookie = res.headers.get('set-cookie') ?? '';
    assert.match(cookie, new RegExp(`^token=${token};`));
    assert.match(cookie, /httponly/i);
    assert.match(cookie, /samesite=lax/i);
  });

  test('POST /login also takes the bare username and password, and the /login/ spelling', async () => {
    const res = await request(`${core.url}/login/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
    assert.equal(res.status, 200);
    assert.match(res.body as string, /^[0-9a-f]{64}$/);
  });

  test('a token works as Bearer, as the token query parameter, and as the token cookie', async () => {
    for (const [init, query] of [
      [{ headers: { authorization: `Bearer ${loginToken}` } }, ''],
      [{}, `?token=${loginToken}`],
      [{ headers: { cookie: `token=${loginToken}` } }, ''],
    ] as const) {
      const res = await whoami(init, query);
      assert.equal(res.status, 200, JSON.stringify(init) + query);
      assert.equal((res.body as { username: string }).username, 'admin');
    }
  });

  test('Basic authentication works on any request', async () => {
    const res = await request(`${core.url}/operations-manager/jobs?limit=1`, { headers: { authorization: basic('admin', ADMIN_PASSWORD) } });
    assert.equal(res.status, 200);
  });

  test('every wrong credential is a 401 in the surface\'s own shape', async () => {
    const wrong: Array<[string, RequestInit, string]> = [
      ['no credentials', {}, ''],
      ['an unknown bearer token', { headers: { authorization: `Bearer ${'0'.repeat(64)}` } }, ''],
      ['a malformed bearer token', { headers: { authorization: 'Bearer nope' } }, ''],
      ['an unknown query token', {}, `?token=${'1'.repeat(64)}`],
      ['an unknown cookie token', { headers: { cookie: `token=${'2'.repeat(64)}` } }, ''],
      ['an unsupported scheme', { headers: { authorization: 'Digest x' } }, ''],
      ['Basic without a colon', { headers: { authorization: `Basic ${Buffer.from('admin').toString('base64')}` } }, ''],
      ['Basic with an unknown user', { headers: { authorization: basic('nobody-here', 'x') } }, ''],
    ];
    for (const [what, init, query] of wrong) {
      const res = await request(`${core.url}/operations-manager/jobs${query}`, init);
      assert.equal(res.status, 401, what);
      assert.deepEqual(Object.keys(res.body as object).sort(), ['data', 'message', 'metadata'], what);
      const plain = await request(`${core.url}/whoami${query}`, init);
      assert.equal(plain.status, 401, what);
      assert.equal((plain.body as { code: string }).code, 'UNAUTHENTICATED', what);
    }
  });

  test('a wrong password and an unknown user are refused with the same answer', async () => {
    const post = (body: unknown) => request(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.0.0.9' }, body: JSON.stringify(body) });
    const wrongPassword = await post({ user: { username: 'admin', password: 'not-it' } });
    const unknownUser = await post({ user: { username: 'ghost-user', password: 'not-it' } });
    assert.equal(wrongPassword.status, 401);
    assert.deepEqual(wrongPassword.body, unknownUser.body);
    assert.deepEqual(wrongPassword.body, { message: 'Invalid username or password', code: 'UNAUTHENTICATED', details: [] });
  });

  test('a malformed login body is a 400 naming what is wrong', async () => {
    const res = await request(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin' } }) });
    assert.equal(res.status, 400);
    assert.equal((res.body as { code: string }).code, 'VALIDATION_FAILED');
  });

  test('after repeated failures a username is locked out, even with the right password, known or not', async () => {
    for (const username of ['locked-user', 'admin2']) {
      for (let i = 0; i < 3; i += 1) {
        const res = await request(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password: 'wrong' }) });
        assert.equal(res.status, 401);
      }
      const locked = await request(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password: 'wrong' }) });
      assert.equal(locked.status, 429);
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
    }
  });

  test('POST /logout ends the token used, and only that one', async () => {
    const login = await request(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
    const token = login.body as string;
    assert.equal((await whoami({ headers: { authorization: `Bearer ${token}` } })).status, 200);
    const out = await request(`${core.url}/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    assert.equal(out.status, 200);
    assert.equal((await whoami({ headers: { authorization: `Bearer ${token}` } })).status, 401);
    assert.equal((await whoami({ headers: { authorization: `Bearer ${loginToken}` } })).status, 200);
    const admin = await core.core.auth.findAccount('admin');
    assert.equal(admin!['loggedIn'], false, 'logging out clears loggedIn');
  });

  test('passwords and tokens never reach the logs', async () => {
    const all = core.logs.join('\n');
    assert.ok(all.includes('"message":"login"'), 'logins are logged');
    assert.ok(!all.includes(ADMIN_PASSWORD));
    assert.ok(!all.includes(loginToken));
    assert.ok(!all.includes(core.adminToken));
  });
});

describe('lockout by address', () => {
  let core: RunningCore;
  before(async () => {
    core = await startCore((await openTestStore()), { AUTH_MAX_FAILED_LOGINS: '50', AUTH_MAX_FAILED_LOGINS_PER_ADDRESS: '4' });
  });
  after(() => core.close());

  test('failures spread over many usernames from one address lock that address out', async () => {
    const post = (username: string, password: string) => request(`${core.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    for (let i = 0; i < 4; i += 1) assert.equal((await post(`spray-${i}`, 'x')).status, 401);
    assert.equal((await post('admin', ADMIN_PASSWORD)).status, 429);
  });
});
