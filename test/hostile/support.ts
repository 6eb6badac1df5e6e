/**
 * What the attacks on a real core process share: an account with a password
 * made in the store before the core starts on it, and a liveness probe.
 */
import assert from 'node:assert/strict';
import { hashPassword } from '../../core/src/auth/passwords.ts';
import { newObjectId, roleId } from '../../kernel/store/ids.ts';
import type { Store } from '../../kernel/store/types.ts';
import { request } from '../helpers/core.ts';
import { timingSleep } from '../helpers/wait.ts';

/** A local account holding one built-in role, e.g. `['OperationsManager', 'apiread']`: a caller with little right. */
export async function passwordAccount(store: Store, username: string, password: string, role: readonly [provenance: string, name: string]): Promise<void> {
  await store.collection('accounts').insertOne({
    _id: newObjectId(),
    username,
    firstname: username,
    provenance: 'Local AAA',
    inactive: false,
    memberOf: [],
    assignedRoles: [{ roleId: roleId(role[0], role[1]) }],
    passwordHash: await hashPassword(password),
  });
}

/** Probes `/health/live` every 20 ms, as a liveness probe spaces them, until stopped; answers how long each took. */
export function probeLive(url: string): { stop(): Promise<number[]> } {
  const live: number[] = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await request(`${url}/health/live`, { signal: AbortSignal.timeout(10_000) });
      assert.equal(res.status, 200);
      live.push(performance.now() - started);
      await timingSleep(20, 'probes spaced as a liveness probe spaces them');
    }
  })();
  return {
    async stop() {
      done = true;
      await probing;
      return live;
    },
  };
}
