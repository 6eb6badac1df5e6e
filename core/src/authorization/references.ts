/**
 * References between accounts, groups, roles and service accounts: checking
 * that named roles and groups exist, refusing group cycles, removing a
 * deleted group or role from everyone who refers to it, and ending the
 * sessions of a principal.
 */
import { BadRequestError, ValidationError } from '../../../kernel/index.ts';
import type { Doc, DocCollection, ErrorDetail, FieldDef, Store } from '../../../kernel/index.ts';
import { GROUPS, ROLES, SERVICE_ACCOUNTS, SESSIONS } from '../store/collections.ts';
import { accounts as accountType, groups as groupType } from '../store/doc-types.ts';
import type { Sessions } from '../auth/sessions.ts';
import type { GroupRef, RoleRef } from './schemas.ts';

const PAGE = 500;

/** A plain string field that is not in the search registry but has a store column (an index key). */
function plainField(path: string): FieldDef {
  return { path, type: 'string', array: false, arrayOfObjects: null, dateEncoding: null, sortable: true, textSearch: false };
}
const ID = plainField('_id');
const SESSION_ACCOUNT = plainField('accountId');

/** Keeps the first of each id: legacy clients that add a role already held should not fail. */
export function dedupe<T>(list: readonly T[], key: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of list) if (!byKey.has(key(item))) byKey.set(key(item), item);
  return [...byKey.values()];
}

async function unknownIds(collection: DocCollection, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = new Set((await collection.findByIds(ids)).map((d) => d['_id'] as string));
  return ids.filter((id) => !found.has(id));
}

/** 400 naming every role and group id that does not exist. */
export async function assertKnown(store: Store, refs: { assignedRoles?: readonly RoleRef[]; memberOf?: readonly GroupRef[] }): Promise<void> {
  const details: ErrorDetail[] = [];
  const roles = await unknownIds(store.collection(ROLES.name), (refs.assignedRoles ?? []).map((r) => r.roleId));
  const groups = await unknownIds(store.collection(GROUPS.name), (refs.memberOf ?? []).map((g) => g.groupId));
  for (const id of roles) details.push({ parameter: 'assignedRoles', message: `${id} is not a known role id` });
  for (const id of groups) details.push({ parameter: 'memberOf', message: `${id} is not a known group id` });
  if (details.length === 0) return;
  const parts = [roles.length > 0 ? `unknown role ids: ${roles.join(', ')}` : '', groups.length > 0 ? `unknown group ids: ${groups.join(', ')}` : ''];
  throw new ValidationError(`Invalid body: ${parts.filter(Boolean).join('; ')}`, details);
}

function groupIdsOf(doc: Doc): string[] {
  const list = doc['memberOf'];
  return Array.isArray(list) ? list.map((g: { groupId?: unknown }) => g?.groupId).filter((id): id is string => typeof id === 'string') : [];
}

/** Refuses memberships that would make a group (indirectly) a member of itself. */
export async function assertNoCycle(store: Store, groupId: string, memberOf: readonly GroupRef[]): Promise<void> {
  const groups = store.collection(GROUPS.name);
  const seen = new Set<string>();
  let frontier = memberOf.map((g) => g.groupId);
  const path = new Map<string, string>(frontier.map((id) => [id, groupId]));
  while (frontier.length > 0) {
    if (frontier.includes(groupId)) {
      throw new BadRequestError(`Group ${groupId} cannot be a member of ${memberOf.map((g) => g.groupId).join(', ')}: that would make it a member of itself`, [
        { parameter: 'memberOf', message: `makes a cycle through ${path.get(groupId) ?? groupId}` },
      ]);
    }
    const fresh = frontier.filter((id) => !seen.has(id));
    fresh.forEach((id) => seen.add(id));
    const next: string[] = [];
    for (const parent of await groups.findByIds(fresh)) {
      for (const id of groupIdsOf(parent)) {
        if (!path.has(id)) path.set(id, parent['_id'] as string);
        next.push(id);
      }
    }
    frontier = next;
  }
}

type RefKind = { array: 'memberOf'; key: 'groupId' } | { array: 'assignedRoles'; key: 'roleId' };
export const GROUP_REFS: RefKind = { array: 'memberOf', key: 'groupId' };
export const ROLE_REFS: RefKind = { array: 'assignedRoles', key: 'roleId' };

function without(doc: Doc, kind: RefKind, id: string): Doc | null {
  const list = doc[kind.array];
  if (!Array.isArray(list)) return null;
  const kept = list.filter((entry: Record<string, unknown> | null) => entry?.[kind.key] !== id);
  return kept.length === list.length ? null : { ...doc, [kind.array]: kept, _meta: { ...(doc['_meta'] as object | undefined), updated: new Date().toISOString() } };
}

/** Removes `id` from the memberOf or assignedRoles of every account, group and service account. */
export async function removeReferences(store: Store, kind: RefKind, id: string): Promise<number> {
  let changed = 0;
  for (const type of [accountType, groupType]) {
    const collection = store.collection(type.collection);
    const field = type.fields.get(`${kind.array}.${kind.key}`)!;
    // Rewritten matches leave the result, so only the ones left unchanged are skipped.
    let unchanged = 0;
    for (;;) {
      const where = { kind: 'compare', op: 'eq', field, value: id } as const;
      const page = await collection.search({ where, sort: [{ field: type.fields.get('_id')!, direction: 1 }], skip: unchanged, limit: PAGE });
      for (const doc of page.docs) {
        const updated = without(doc, kind, id);
        if (updated && (await collection.replaceOne(updated))) changed += 1;
        else unchanged += 1;
      }
      if (page.docs.length < PAGE) break;
    }
  }
  // Service accounts are few and have no search fields: read them all.
  const services = store.collection(SERVICE_ACCOUNTS.name);
  for (let skip = 0; ; skip += PAGE) {
    const page = await services.search({ where: null, sort: [{ field: ID, direction: 1 }], skip, limit: PAGE });
    for (const doc of page.docs) {
      const updated = without(doc, kind, id);
      if (updated && (await services.replaceOne(updated))) changed += 1;
    }
    if (page.docs.length < PAGE) break;
  }
  return changed;
}

/**
 * Ends the sessions of an account or service account, except `keep` (the caller's own).
 * `cache` is told once they are deleted, even if a deletion failed part way: a session it
 * remembered would otherwise stay usable on this core for its window (docs/http-path.md).
 */
export async function endSessions(store: Store, cache: Pick<Sessions, 'ended'>, principal: 'account' | 'service', id: string, keep: string | null = null): Promise<number> {
  const sessions = store.collection(SESSIONS.name);
  let ended = 0;
  let kept = 0;
  try {
    for (;;) {
      const page = await sessions.search({ where: { kind: 'compare', op: 'eq', field: SESSION_ACCOUNT, value: id }, sort: [{ field: ID, direction: 1 }], skip: kept, limit: PAGE });
      for (const session of page.docs) {
        // Account and client ids have different shapes, but the principal decides, not the shape.
        if (session['_id'] === keep || session['principal'] !== principal) kept += 1;
        else if (await sessions.deleteOne(session['_id'] as string)) ended += 1;
      }
      if (page.docs.length < PAGE) break;
    }
  } finally {
    cache.ended();
  }
  return ended;
}
