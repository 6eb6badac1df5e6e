/**
 * What the store must hold before the core serves: the built-in roles (made
 * from the routes), the `admins` group holding every application's admin
 * role, the first administrator, and the Platform.admin migration.
 */
import { randomBytes } from 'node:crypto';
import { DuplicateKeyError, newObjectId, repository } from '../../../kernel/index.ts';
import type { AnyRoute, CollectionDeclaration, Doc, Logger, Store } from '../../../kernel/index.ts';
import { ACCOUNTS, GROUPS, ROLES } from '../store/collections.ts';
import type { PlainDoc } from '../store/collections.ts';
import { accounts as accountType, groups as groupType } from '../store/doc-types.ts';
import { hashPassword } from './passwords.ts';
import { builtInRoles, PLATFORM_ADMIN, PLATFORM_ADMIN_REPLACEMENTS } from './roles.ts';
import { roleId } from '../../../kernel/index.ts';
import type { AuthService } from './service.ts';

export const ADMINS_GROUP = 'admins';

export interface BootstrapDeps {
  readonly store: Store;
  readonly logger: Logger;
  readonly routes: readonly AnyRoute[];
  readonly admin: { readonly username: string; readonly password: string | null };
  readonly auth: AuthService;
  /** Where a generated admin password is shown, once. */
  readonly announce?: (text: string) => void;
}

type RoleRef = { roleId: string };

function roleRefs(list: unknown): RoleRef[] {
  return Array.isArray(list) ? list.filter((r): r is RoleRef => !!r && typeof (r as RoleRef).roleId === 'string') : [];
}

function withRoles(doc: Doc, ids: readonly string[]): Doc | null {
  const held = roleRefs(doc['assignedRoles']);
  const missing = ids.filter((id) => !held.some((r) => r.roleId === id));
  return missing.length === 0 ? null : { ...doc, assignedRoles: [...held, ...missing.map((roleId) => ({ roleId }))] };
}

/**
 * Inserts, or answers false when another core starting on the same store
 * inserted the same key first (both saw nothing and both insert): that core's
 * document is as good as ours, and failing the start over it would leave a
 * second core unable to start next to the first.
 */
async function insertFirst(store: Store, collection: CollectionDeclaration<PlainDoc>, doc: PlainDoc): Promise<boolean> {
  try {
    await store.collection(collection.name).insertOne(doc);
    return true;
  } catch (err) {
    if (err instanceof DuplicateKeyError) return false;
    throw err;
  }
}

async function syncRoles(store: Store, routes: readonly AnyRoute[]): Promise<string[]> {
  const roles = repository(store, ROLES);
  const adminIds: string[] = [];
  for (const role of builtInRoles(routes)) {
    // Built-in roles are made from the routes at every start: whoever writes last writes the same.
    await roles.put({ ...role });
    if (role.name === 'admin' && role.provenance !== PLATFORM_ADMIN.provenance) adminIds.push(role._id);
  }
  return adminIds;
}

async function ensureAdminsGroup(store: Store, adminRoleIds: string[]): Promise<Doc> {
  const found = await repository(store, GROUPS).search({
    where: { kind: 'compare', op: 'eq', field: groupType.fields.get('name')!, value: ADMINS_GROUP },
    sort: [{ field: groupType.fields.get('_id')!, direction: 1 }],
    skip: 0,
    limit: 1,
  });
  const existing = found.docs[0];
  if (!existing) {
    const now = new Date().toISOString();
    const group: PlainDoc = {
      _id: newObjectId(),
      name: ADMINS_GROUP,
      description: 'Administrators: holds the admin role of every application',
      provenance: 'Local AAA',
      memberOf: [],
      assignedRoles: adminRoleIds.map((roleId) => ({ roleId })),
      inactive: false,
      _meta: { created: now, updated: now },
    };
    // Lost to another core: its group is read and brought up to date as an existing one.
    return (await insertFirst(store, GROUPS, group)) ? group : ensureAdminsGroup(store, adminRoleIds);
  }
  // Additive only: an application added later gives its admin role to the admins.
  const updated = withRoles(existing, adminRoleIds);
  if (updated) await store.collection(GROUPS.name).replaceOne(updated);
  return updated ?? existing;
}

async function ensureAdmin(deps: BootstrapDeps, group: Doc): Promise<void> {
  if (await deps.auth.findAccount(deps.admin.username)) return;
  const password = deps.admin.password ?? randomBytes(12).toString('base64url');
  const now = new Date().toISOString();
  const inserted = await insertFirst(deps.store, ACCOUNTS, {
    _id: newObjectId(),
    username: deps.admin.username,
    firstname: 'Administrator',
    provenance: 'Local AAA',
    inactive: false,
    loggedIn: false,
    memberOf: [{ groupId: group['_id'], aaaManaged: false }],
    assignedRoles: [],
    gitTokens: {},
    _meta: { created: now, updated: now },
    passwordHash: await hashPassword(password),
  });
  if (!inserted) return; // another core starting at the same time created it
  deps.logger.info('created the administrator account', { username: deps.admin.username });
  if (!deps.admin.password) {
    // Shown once, outside the logs, as docs/decisions.md D3 asks.
    (deps.announce ?? ((t) => process.stderr.write(t)))(`\n  Administrator "${deps.admin.username}" created with the generated password: ${password}\n  Set ADMIN_PASSWORD to choose it; it will not be shown again.\n\n`);
  }
}

/** Holders of Platform.admin get its thirteen replacements; the old role stays until they drop it. */
async function migratePlatformAdmin(store: Store, logger: Logger): Promise<void> {
  const platformAdmin = roleId(PLATFORM_ADMIN.provenance, PLATFORM_ADMIN.name);
  const replacements = PLATFORM_ADMIN_REPLACEMENTS.map((p) => roleId(p, 'admin'));
  for (const name of [ACCOUNTS.name, GROUPS.name] as const) {
    const collection = store.collection(name);
    let skip = 0;
    for (;;) {
      const idField = (name === 'accounts' ? accountType : groupType).fields.get('_id')!;
      const page = await collection.search({ where: null, sort: [{ field: idField, direction: 1 }], skip, limit: 500 });
      for (const doc of page.docs) {
        if (!roleRefs(doc['assignedRoles']).some((r) => r.roleId === platformAdmin)) continue;
        const updated = withRoles(doc, replacements);
        if (updated) {
          await collection.replaceOne(updated);
          logger.warn('Platform.admin holder given its replacement roles', { collection: name, id: doc['_id'], name: doc['username'] ?? doc['name'] });
        }
      }
      skip += page.docs.length;
      if (skip >= page.total || page.docs.length === 0) break;
    }
  }
}

export async function bootstrapAuth(deps: BootstrapDeps): Promise<void> {
  const adminRoleIds = await syncRoles(deps.store, deps.routes);
  const group = await ensureAdminsGroup(deps.store, adminRoleIds);
  await ensureAdmin(deps, group);
  await migratePlatformAdmin(deps.store, deps.logger);
  deps.auth.invalidate();
}
