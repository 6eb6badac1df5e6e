/**
 * Who is calling and what they may do: the account (or service account), the
 * groups it belongs to directly or through other groups, and the methods its
 * roles allow. An inactive account or group grants nothing.
 */
import type { Doc, Store } from '../../../kernel/index.ts';
import type { RoleDoc } from './roles.ts';
import { ACCOUNTS, GROUPS, ROLES, SERVICE_ACCOUNTS } from '../store/collections.ts';
import type { Caller } from '../../../kernel/index.ts';

/** The caller's shape is the kernel's (route records carry it); this module decides who it is. */
export type { Caller };

export function can(caller: Caller, provenance: string, method: string): boolean {
  return caller.adminOf.has(provenance) || caller.methods.has(`${provenance}.${method}`);
}

/** One key per account or service account: whose turn a search takes on the store's search thread (docs/search.md). */
export function searcher(caller: Caller): string {
  return `${caller.principal}:${caller.id}`;
}

/** Operations-manager admins see every job and task, whatever its groups. */
export function seesAllJobs(caller: Caller): boolean {
  return caller.adminOf.has('OperationsManager');
}

/** Whether a job or task with these groups is visible to the caller (docs/decisions.md D15). */
export function mayAccess(caller: Caller, groups: unknown): boolean {
  if (seesAllJobs(caller) || !Array.isArray(groups) || groups.length === 0) return true;
  return groups.some((g) => typeof g === 'string' && caller.groupIds.has(g));
}

function ids(list: unknown, key: string): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((entry: unknown) => (entry && typeof entry === 'object' ? (entry as Doc)[key] : undefined)).filter((v): v is string => typeof v === 'string');
}

export async function loadCaller(store: Store, principal: Caller['principal'], id: string, sessionId: string | null): Promise<Caller | null> {
  const account = await store.collection((principal === 'account' ? ACCOUNTS : SERVICE_ACCOUNTS).name).findById(id);
  if (!account || account['inactive'] === true) return null;

  const groups: Doc[] = [];
  const seen = new Set<string>();
  let frontier = ids(account['memberOf'], 'groupId');
  while (frontier.length > 0) {
    const fresh = frontier.filter((g) => !seen.has(g));
    fresh.forEach((g) => seen.add(g));
    const found = (await store.collection(GROUPS.name).findByIds(fresh)).filter((g) => g['inactive'] !== true);
    groups.push(...found);
    frontier = found.flatMap((g) => ids(g['memberOf'], 'groupId'));
  }

  const roleIds = new Set([...ids(account['assignedRoles'], 'roleId'), ...groups.flatMap((g) => ids(g['assignedRoles'], 'roleId'))]);
  const roles = (await store.collection(ROLES.name).findByIds([...roleIds])) as unknown as RoleDoc[];
  const methods = new Set<string>();
  const adminOf = new Set<string>();
  const views = new Map<string, { provenance: string; path: string }>();
  for (const role of roles) {
    if (role.name === 'admin') adminOf.add(role.provenance);
    for (const m of role.allowedMethods ?? []) methods.add(`${m.provenance}.${m.name}`);
    for (const v of role.allowedViews ?? []) views.set(`${v.provenance} ${v.path}`, v);
  }
  return {
    principal,
    id,
    username: String(account['username'] ?? account['name'] ?? id),
    provenance: String(account['provenance'] ?? (principal === 'service' ? 'Service Account' : 'Local AAA')),
    firstname: typeof account['firstname'] === 'string' ? account['firstname'] : null,
    sessionId,
    roleIds,
    groupIds: new Set(groups.map((g) => g['_id'] as string)),
    groups: groups.map((g) => ({ id: g['_id'] as string, provenance: String(g['provenance'] ?? ''), name: String(g['name'] ?? '') })),
    methods,
    adminOf,
    views: [...views.values()],
  };
}
