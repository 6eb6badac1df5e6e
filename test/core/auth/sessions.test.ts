/** Token expiry: idle login sessions and fixed-lifetime client-credentials tokens. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sessions } from '../../../core/src/auth/sessions.ts';
import { tokenHash } from '../../../core/src/auth/tokens.ts';
import { MongoServerError } from 'mongodb';
import { mongoStoreError } from '../../../kernel/store/mongo/errors.ts';
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

test('a session touch the store cannot take (MongoDB failover: no primary) does not fail the read', async () => {
  const store = await openTestStore();
  const c = clock(9_000_000);
  // What the MongoDB store throws while the replica set has no primary, through its own mapping.
  const failover = mongoStoreError(new MongoServerError({ ok: 0, code: 10107, errmsg: 'not primary' }), 'sessions');
  let refused = 0;
  const failing = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop !== 'collection') return Reflect.get(target, prop, receiver) as unknown;
      return (name: Parameters<typeof store.collection>[0]) => {
        const real = target.collection(name);
        return new Proxy(real, {
          get(coll, p) {
            if (p === 'replaceOne' || p === 'deleteOne') {
              return async () => {
                refused += 1;
                throw failover;
              };
            }
            const value = Reflect.get(coll, p, coll) as unknown;
            return typeof value === 'function' ? value.bind(coll) : value;
          },
        });
      };
    },
  });
  const sessions = new Sessions(failing, { idleMinutes: 60, now: c.now });
  const { token } = await sessions.start('b'.repeat(24), 'account', 'login');
  c.advance(31_000);
  assert.ok(await sessions.resolve(token), 'the read goes on while the touch cannot be written');
  assert.equal(refused, 1, 'the touch was tried');
  c.advance(61 * 60_000);
  assert.equal(await sessions.resolve(token), null, 'an expired session is still refused when it cannot be removed');
  await store.close();
});
