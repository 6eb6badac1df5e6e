/**
 * Accounts and groups made directly in the store for permission tests, with a
 * session token each (no password hashing, so tests stay fast).
 */
import { roleId } from '../../kernel/store/ids.ts';
import { newObjectId } from '../../kernel/store/ids.ts';
import type { Store } from '../../kernel/store/types.ts';
import type { RunningCore } from './core.ts';

export interface TestUser {
  readonly id: string;
  readonly token: string;
}

/** The id of a built-in role, e.g. `role('OperationsManager', 'apiread')`. */
export const role = roleId;

export async function makeGroup(core: RunningCore, name: string, options: { roles?: string[]; memberOf?: string[]; id?: string } = {}): Promise<string> {
  const id = options.id ?? newObjectId();
  await storeOf(core).collection('groups').insertOne({
    _id: id,
    name,
    description: `${name} (test)`,
    provenance: 'Local AAA',
    memberOf: (options.memberOf ?? []).map((groupId) => ({ groupId, aaaManaged: false })),
    assignedRoles: (options.roles ?? []).map((r) => ({ roleId: r })),
    inactive: false,
  });
  core.core.auth.invalidate();
  return id;
}

export async function makeUser(core: RunningCore, username: string, options: { roles?: string[]; groups?: string[] } = {}): Promise<TestUser> {
  const id = newObjectId();
  await storeOf(core).collection('accounts').insertOne({
    _id: id,
    username,
    firstname: username,
    provenance: 'Local AAA',
    inactive: false,
    memberOf: (options.groups ?? []).map((groupId) => ({ groupId, aaaManaged: false })),
    assignedRoles: (options.roles ?? []).map((r) => ({ roleId: r })),
  });
  core.core.auth.invalidate();
  const { token } = await core.core.auth.sessions.start(id, 'account', 'login');
  return { id, token };
}

function storeOf(core: RunningCore): Store {
  return core.store;
}
