/**
 * The caller check remembers what the core said of a credential for a few seconds.
 * Short credentials are their own key and long ones are keyed by their hash,
 * in separate maps, so no credential can stand for another.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CallerChecks } from '../../../gateway/src/audit/callers.ts';
import type { CallCore, CoreCall } from '../../../gateway/src/mapping/run.ts';

/** A core that knows one credential per name and counts the questions. */
function core(known: Record<string, string>): { callFor(credential: string): CallCore; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    callFor: (credential) => async (call: CoreCall) => {
      assert.equal(call.path, '/whoami');
      asked.push(credential);
      const name = known[credential];
      return name ? { status: 200, body: { username: name } } : { status: 401, body: { message: 'Invalid token' } };
    },
  };
}

test('a caller is asked once and then remembered, and nothing is asked of a call without credentials', async () => {
  const checks = new CallerChecks();
  const c = core({ 'Bearer a': 'alice' });
  for (let i = 0; i < 3; i += 1) assert.deepEqual(await checks.check({ authorization: 'Bearer a' }, c.callFor('Bearer a')), { kind: 'known', name: 'alice' });
  assert.deepEqual(checks.remembered({ authorization: 'Bearer a' }), { kind: 'known', name: 'alice' });
  assert.deepEqual(c.asked, ['Bearer a']);
  assert.deepEqual(await checks.check({}, c.callFor('')), { kind: 'refused', message: 'Authentication is required' });
  assert.deepEqual(c.asked, ['Bearer a']);
});

test('a refused credential is remembered with the core\'s message', async () => {
  const checks = new CallerChecks();
  const c = core({});
  assert.deepEqual(await checks.check({ token: 'stale' }, c.callFor('stale')), { kind: 'refused', message: 'Invalid token' });
  assert.deepEqual(checks.remembered({ token: 'stale' }), { kind: 'refused', message: 'Invalid token' });
});

test('a short credential that spells a long one\'s hash is not taken for it', async () => {
  const checks = new CallerChecks();
  const long = `Bearer ${'x'.repeat(400)}`;
  const hash = createHash('sha256').update(long).digest('hex');
  const c = core({ [long]: 'admin' });
  assert.deepEqual(await checks.check({ authorization: long }, c.callFor(long)), { kind: 'known', name: 'admin' });
  assert.deepEqual(checks.remembered({ authorization: long }), { kind: 'known', name: 'admin' }, 'the long one is remembered');
  assert.equal(checks.remembered({ authorization: hash }), null, 'its hash, sent as a credential, is a stranger');
  assert.deepEqual(await checks.check({ authorization: hash }, c.callFor(hash)), { kind: 'refused', message: 'Invalid token' });
});
