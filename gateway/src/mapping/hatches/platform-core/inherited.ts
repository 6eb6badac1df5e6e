/**
 * `pcInherited`: `GET /accounts/:id/inherited` and `GET /groups/:id/inherited`.
 * The new interface stores only direct memberships, so the hatch walks the
 * groups the way the core decides a caller's rights (core/src/auth/caller.ts):
 * through memberOf, skipping inactive groups and what lies beyond them.
 * Answers the document with two lists added:
 * - `inheritedGroups`: `[{groupId, name}]`, groups reached only through other groups;
 * - `inheritedRoles`: `[{roleId, groupId}]`, roles given by any group reached
 *   (the first group, in walking order, that gives it).
 *
 * with: {kind: accounts|groups, id}
 */
import type { Hatch } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Obj } from './common.ts';
import { argsOf, kindOf, pathOf, send, text } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcInherited';

function refs(doc: unknown, list: string, key: string): string[] {
  const value = isPlainObject(doc) ? doc[list] : undefined;
  return Array.isArray(value) ? value.map((r: unknown) => (isPlainObject(r) ? r[key] : undefined)).filter((id): id is string => typeof id === 'string') : [];
}

export const pcInherited: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const kind = kindOf(args, HATCH, ['accounts', 'groups']);
  const id = text(args, 'id', HATCH);
  const { body: doc } = await send(api.call, { method: 'GET', path: pathOf(kind, id) });
  const direct = new Set(refs(doc, 'memberOf', 'groupId'));
  const seen = new Set<string>(kind === 'groups' ? [id] : []);
  const inheritedGroups: Obj[] = [];
  const inheritedRoles = new Map<string, Obj>();
  let frontier = [...direct];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const groupId of frontier) {
      if (seen.has(groupId)) continue;
      seen.add(groupId);
      // A membership naming a group deleted meanwhile is skipped, as the core skips it.
      const { status, body: group } = await send(api.call, { method: 'GET', path: pathOf('groups', groupId) }, [404]);
      if (status === 404 || !isPlainObject(group) || group['inactive'] === true) continue;
      if (!direct.has(groupId)) inheritedGroups.push({ groupId, name: group['name'] });
      for (const roleId of refs(group, 'assignedRoles', 'roleId')) if (!inheritedRoles.has(roleId)) inheritedRoles.set(roleId, { roleId, groupId });
      next.push(...refs(group, 'memberOf', 'groupId'));
    }
    frontier = next;
  }
  return { status: 200, body: { ...(isPlainObject(doc) ? doc : {}), inheritedGroups, inheritedRoles: [...inheritedRoles.values()] } };
};

export const pcInheritedHatch: HatchRecord = hatchRecord(
  HATCH,
  'platform-core',
  'the new interface stores direct memberships only; the inherited groups and roles are a walk through memberOf',
  { required: ['kind', 'id'], properties: { kind: { enum: ['accounts', 'groups'] }, id: { type: 'string', minLength: 1 } } },
  pcInherited,
);
