/** Token expiry: idle login sessions and fixed-lifetime client-credentials tokens. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sessions } from '../../../core/src/auth/sessions.ts';
import { tokenHash } from '../../../core/src/auth/tokens.ts';
import { openTestStore } from '../../helpers/stores.ts';

function clock(start: number): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

test('a login session expires after logoutTime minutes without use, and use extends it', async () => {
  const store = await openTestStore();
  const c = clock(1_000_000);
  const sessions = new Sessions(store, { idleMinutes: 60, now: c.now });
  const { token } = await sessions.start('a'.repeat(24), 'account', 'login');
  c.advance(59 * 60_000);
  assert.ok(await sessions.resolve(token), 'still valid after 59 idle minutes');
  c.advance(59 * 60_000);
  assert.ok(await sessions.resolve(token), 'the previous use extended it');
  c.advance(60 * 60_000 + 1);
  assert.equal(await sessions.resolve(token), null);
  assert.equal(await store.collection('sessions').findById(tokenHash(token)), null, 'an expired session is removed');
  await store.close();
});

test('a client-credentials token expires after its lifetime, however much it is used', async () => {
  const store = await openTestStore();
  const c = clock(5_000_000);
  const sessions = new Sessions(store, { idleMinutes: 60, now: c.now });
  const { token } = await sessions.start('client', 'service', 'oauth', 3_600_000);
  for (let i = 0; i < 5; i += 1) {
    c.advance(10 * 60_000);
    assert.ok(await sessions.resolve(token));
  }
  c.advance(10 * 60_000);
  assert.equal(await sessions.resolve(token), null);
  await store.close();
});

test('the store keeps only the hash of a token', async () => {
  const store = await openTestStore();
  const sessions = new Sessions(store, { idleMinutes: 60 });
  const { token } = await sessions.start('a'.repeat(24), 'account', 'login');
  const stored = await store.collection('sessions').findById(tokenHash(token));
  assert.ok(stored);
  assert.ok(!JSON.stringify(stored).includes(token));
  assert.equal(await sessions.resolve('not-a-token'), null);
  await store.close();
});
