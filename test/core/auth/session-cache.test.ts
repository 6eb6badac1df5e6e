/**
 * The session cache (core/src/auth/sessions.ts) saves the store read of a
 * token used again within STALE_AFTER_MS, and never keeps a session that this
 * core has ended: every way of ending one is honoured at the next call, a
 * read racing the end is not cached, and expiry and the idle-time touch work
 * as without a cache. The clocks here stand still unless a test moves them,
 * so without each rule the stale entry would be served.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthService, STALE_AFTER_MS } from '../../../core/src/auth/service.ts';
import { Sessions } from '../../../core/src/auth/sessions.ts';
import { tokenHash } from '../../../core/src/auth/tokens.ts';
import { endSessions } from '../../../core/src/authorization/references.ts';
import type { Store } from '../../../kernel/index.ts';
import { createLogger, UnauthenticatedError } from '../../../kernel/index.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { gatedReads } from '../../helpers/gated-reads.ts';
import type { GatedReads } from '../../helpers/gated-reads.ts';

const ACCOUNT = 'a'.repeat(24);
const OPTIONS = { logoutTime: 60, maxFailedLogins: 5, maxFailedLoginsPerAddress: 50, lockoutMinutes: 15, oauthTokenSeconds: 3600 };
const ADDRESS = '127.0.0.1';

function clock(start = 1_700_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

async function setUp(): Promise<{ base: Store; auth: AuthService; watch: GatedReads; time: ReturnType<typeof clock> }> {
  const base = await openTestStore();
  await base.collection('accounts').insertOne({ _id: ACCOUNT, username: 'olga', provenance: 'Local AAA', assignedRoles: [], memberOf: [] });
  const watch = gatedReads(base, 'sessions', 'findById');
  const time = clock();
  const auth = new AuthService(watch.store, OPTIONS, createLogger({ level: 'error', service: 'test', silent: true }), time.now);
  return { base, auth, watch, time };
}

const bearer = (token: string) => ({ kind: 'token', token, source: 'bearer' }) as const;

async function refused(auth: AuthService, token: string): Promise<boolean> {
  try {
    await auth.identify(bearer(token), ADDRESS);
    return false;
  } catch (err) {
    if (err instanceof UnauthenticatedError) return true;
    throw err;
  }
}

test('a token used again within the window is not read from the store again, and is read again after it', async () => {
  const { base, auth, watch, time } = await setUp();
  const { token } = await auth.sessions.start(ACCOUNT, 'account', 'login');
  await auth.identify(bearer(token), ADDRESS);
  await auth.identify(bearer(token), ADDRESS);
  assert.equal(watch.reads(), 1);
  time.advance(STALE_AFTER_MS);
  await auth.identify(bearer(token), ADDRESS);
  assert.equal(watch.reads(), 2);
  await base.close();
});

test('a logout ends the token at once, though it was cached a moment before', async () => {
  const { base, auth } = await setUp();
  const { token } = await auth.sessions.start(ACCOUNT, 'account', 'login');
  const caller = await auth.identify(bearer(token), ADDRESS);
  await auth.logout(caller);
  assert.ok(await refused(auth, token));
  await base.close();
});

test('sessions ended for an account (deactivated, its password changed) are refused at once, except the one kept', async () => {
  const { base, auth } = await setUp();
  const { token: first } = await auth.sessions.start(ACCOUNT, 'account', 'login');
  const { token: second, session: kept } = await auth.sessions.start(ACCOUNT, 'account', 'login');
  await auth.identify(bearer(first), ADDRESS);
  await auth.identify(bearer(second), ADDRESS);
  // As the password change does it: the account stays active, so only the session read stands in the way.
  assert.equal(await endSessions(base, auth.sessions, 'account', ACCOUNT, kept._id), 1);
  assert.ok(await refused(auth, first), 'the ended session is refused');
  assert.ok(!(await refused(auth, second)), 'the kept one still works');
  await base.close();
});

test("a service account's tokens are refused at once when its sessions are ended", async () => {
  const { base, auth } = await setUp();
  await base.collection('service_accounts').insertOne({ _id: 'client-1', name: 'robot', provenance: 'Service Account', assignedRoles: [], memberOf: [] });
  const { token } = await auth.sessions.start('client-1', 'service', 'oauth', 3_600_000);
  await auth.identify(bearer(token), ADDRESS);
  await endSessions(base, auth.sessions, 'service', 'client-1');
  assert.ok(await refused(auth, token));
  await base.close();
});

test('a token that expires between two calls inside the window is refused at the second', async () => {
  const { base, auth, time } = await setUp();
  const { token } = await auth.sessions.start(ACCOUNT, 'account', 'oauth', 1_000);
  time.advance(999);
  await auth.identify(bearer(token), ADDRESS);
  time.advance(1);
  assert.ok(await refused(auth, token));
  assert.equal(await base.collection('sessions').findById(tokenHash(token)), null, 'the expired session is removed');
  await base.close();
});

test('a logout while a request was reading the session: that request is answered, the next is refused', async () => {
  const { base, auth, watch, time } = await setUp();
  const { token } = await auth.sessions.start(ACCOUNT, 'account', 'login');
  const caller = await auth.identify(bearer(token), ADDRESS);
  time.advance(STALE_AFTER_MS);
  const gate = watch.arm();
  const inFlight = auth.identify(bearer(token), ADDRESS);
  await gate.read;
  await auth.logout(caller);
  gate.release();
  assert.equal((await inFlight).id, ACCOUNT, 'the request that read the session before the logout is answered');
  assert.ok(await refused(auth, token), 'its read was not cached');
  await base.close();
});

test('sessions ended for an account while a request was reading one: the read is not cached', async () => {
  const { base, auth, watch } = await setUp();
  const { token } = await auth.sessions.start(ACCOUNT, 'account', 'login');
  const gate = watch.arm();
  const inFlight = auth.identify(bearer(token), ADDRESS);
  await gate.read;
  await endSessions(base, auth.sessions, 'account', ACCOUNT);
  gate.release();
  await inFlight;
  assert.ok(await refused(auth, token));
  await base.close();
});

test("another core's logout (a deletion this core was not told of) is honoured once the window has passed", async () => {
  const { base, auth, time } = await setUp();
  const { token } = await auth.sessions.start(ACCOUNT, 'account', 'login');
  await auth.identify(bearer(token), ADDRESS);
  await base.collection('sessions').deleteOne(tokenHash(token));
  time.advance(STALE_AFTER_MS);
  assert.ok(await refused(auth, token));
  await base.close();
});

test('a cached login session still records its use every 30 s, and one ended elsewhere is refused when the touch finds it gone', async () => {
  const store = await openTestStore();
  const time = clock();
  // A window longer than two touch intervals, so both touches are made on a cached copy.
  const sessions = new Sessions(store, { idleMinutes: 60, now: time.now, staleAfterMs: 120_000 });
  const { token } = await sessions.start(ACCOUNT, 'account', 'login');
  assert.ok(await sessions.resolve(token));
  time.advance(31_000);
  assert.ok(await sessions.resolve(token));
  const stored = await store.collection('sessions').findById(tokenHash(token));
  assert.equal(stored?.['lastUsed'], time.now(), 'the use was recorded');
  assert.equal(stored?.['expiresAt'], time.now() + 60 * 60_000, 'and the idle expiry moved');
  await store.collection('sessions').deleteOne(tokenHash(token));
  time.advance(31_000);
  assert.equal(await sessions.resolve(token), null);
  await store.close();
});

test('a session our copy says has expired is read again: another core may have extended it', async () => {
  const store = await openTestStore();
  const time = clock();
  const sessions = new Sessions(store, { idleMinutes: 1, now: time.now, staleAfterMs: 120_000 });
  const { token } = await sessions.start(ACCOUNT, 'account', 'login');
  assert.ok(await sessions.resolve(token));
  const id = tokenHash(token);
  // Another core's touch, 50 s on.
  const stored = await store.collection('sessions').findById(id);
  await store.collection('sessions').replaceOne({ ...stored!, lastUsed: time.now() + 50_000, expiresAt: time.now() + 110_000 });
  time.advance(60_000);
  assert.ok(await sessions.resolve(token), 'live in the store, so not refused');
  assert.ok(await store.collection('sessions').findById(id), 'and not removed');
  await store.close();
});

