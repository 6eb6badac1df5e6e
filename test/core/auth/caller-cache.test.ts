/**
 * The caller cache never keeps rights that a change has revoked. A request
 * whose caller was being loaded while an administrator took a right away
 * read the roles before the change; what it loaded answers that request,
 * which began first, but must not be cached for the requests after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthService } from '../../../core/src/auth/service.ts';
import { createLogger } from '../../../kernel/index.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { gatedReads } from '../../helpers/gated-reads.ts';

const ACCOUNT = 'a'.repeat(24);
const ROLE = 'b'.repeat(24);
const OPTIONS = { logoutTime: 60, maxFailedLogins: 5, maxFailedLoginsPerAddress: 50, lockoutMinutes: 15, oauthTokenSeconds: 3600 };

test('a right revoked while a caller was being loaded is gone for the next request, not cached from the load that read it', async () => {
  const base = await openTestStore();
  await base.collection('roles').insertOne({ _id: ROLE, name: 'operator', provenance: 'Demo', allowedMethods: [{ provenance: 'Demo', name: 'doThing' }], allowedViews: [] });
  await base.collection('accounts').insertOne({ _id: ACCOUNT, username: 'olga', provenance: 'Local AAA', assignedRoles: [{ roleId: ROLE }], memberOf: [] });
  const { store, arm } = gatedReads(base, 'roles', 'findByIds');
  // A still clock: without the fix the stale entry would live for the whole STALE_AFTER_MS.
  const auth = new AuthService(store, OPTIONS, createLogger({ level: 'error', service: 'test', silent: true }), () => 1_700_000_000_000);
  const { token } = await auth.sessions.start(ACCOUNT, 'account', 'login');
  const credential = { kind: 'token', token, source: 'bearer' } as const;

  const gate = arm();
  const first = auth.identify(credential, '127.0.0.1');
  await gate.read;
  // The administrator's change, as the authorization module makes it: the store first, then the caches.
  await base.collection('roles').replaceOne({ _id: ROLE, name: 'operator', provenance: 'Demo', allowedMethods: [], allowedViews: [] });
  auth.invalidate();
  gate.release();

  assert.ok((await first).methods.has('Demo.doThing'), 'the request that began before the change read the rights it had then');
  const next = await auth.identify(credential, '127.0.0.1');
  assert.equal(next.methods.has('Demo.doThing'), false, 'the next request sees the right revoked');
  await base.close();
});
