/**
 * Role and group assignments of accounts, groups and service accounts: lists
 * are deduplicated, every id must exist, and the obsolete Platform.admin role
 * follows the deprecation schedule of the configured release.
 */
import { PLATFORM_ADMIN, PLATFORM_ADMIN_REPLACEMENTS } from '../auth/roles.ts';
import { compareReleases, roleId } from '../../../kernel/index.ts';
import { BadRequestError } from '../../../kernel/index.ts';
import type { Doc, Logger, Store } from '../../../kernel/index.ts';
import { assertKnown, dedupe } from './references.ts';
import type { GroupRef, RoleRef } from './schemas.ts';

export const PLATFORM_ADMIN_ID = roleId(PLATFORM_ADMIN.provenance, PLATFORM_ADMIN.name);
const PLATFORM_ADMIN_NAME = `${PLATFORM_ADMIN.provenance}.${PLATFORM_ADMIN.name}`;
const DEPRECATED_IN = '2021.2';
const REMOVED_IN = '2022.2';
const REPLACEMENTS = PLATFORM_ADMIN_REPLACEMENTS.map((p) => `${p}.admin`);
const REPLACEMENT_IDS = PLATFORM_ADMIN_REPLACEMENTS.map((p) => roleId(p, 'admin'));

export interface Assignments {
  assignedRoles?: RoleRef[];
  memberOf?: GroupRef[];
}

function roleIds(doc: Doc | null): Set<string> {
  const list = doc?.['assignedRoles'];
  return new Set(Array.isArray(list) ? list.map((r: { roleId?: unknown }) => r?.roleId).filter((id): id is string => typeof id === 'string') : []);
}

/**
 * Deduplicates and checks the lists a write names. Platform.admin is judged
 * only where it is newly given: re-sending a list that already held it (an
 * account not yet migrated off it) is not an assignment.
 */
export async function resolveAssignments(
  ctx: { store: Store; release: string; logger: Logger },
  input: Assignments,
  current: Doc | null,
  who: string,
): Promise<Assignments> {
  const out: Assignments = {};
  if (input.assignedRoles) out.assignedRoles = dedupe(input.assignedRoles, (r) => r.roleId).map((r) => ({ roleId: r.roleId }));
  if (input.memberOf) out.memberOf = dedupe(input.memberOf, (g) => g.groupId).map((g) => ({ groupId: g.groupId, aaaManaged: g.aaaManaged ?? false }));
  const givesPlatformAdmin = out.assignedRoles?.some((r) => r.roleId === PLATFORM_ADMIN_ID) === true && !roleIds(current).has(PLATFORM_ADMIN_ID);
  if (givesPlatformAdmin && compareReleases(ctx.release, REMOVED_IN) >= 0) {
    throw new BadRequestError(
      `The role ${PLATFORM_ADMIN_NAME} was removed in ${REMOVED_IN} (this platform is ${ctx.release}); assign its replacements instead: ${REPLACEMENTS.join(', ')}`,
      [{ parameter: 'assignedRoles', message: `${PLATFORM_ADMIN_ID} is ${PLATFORM_ADMIN_NAME}, removed in ${REMOVED_IN}` }],
    );
  }
  await assertKnown(ctx.store, out);
  if (out.assignedRoles?.some((r) => r.roleId === PLATFORM_ADMIN_ID)) {
    // The role itself allows nothing: a holder lacking its replacements is given them now, as the start-time
    // migration would at the next start (docs/auth.md, "Platform.admin").
    const held = new Set(out.assignedRoles.map((r) => r.roleId));
    out.assignedRoles = [...out.assignedRoles, ...REPLACEMENT_IDS.filter((id) => !held.has(id)).map((roleId) => ({ roleId }))];
  }
  if (givesPlatformAdmin) {
    ctx.logger.warn(`${PLATFORM_ADMIN_NAME} assigned to ${who}: it is deprecated since ${DEPRECATED_IN} and removed in ${REMOVED_IN}; assign its replacements instead: ${REPLACEMENTS.join(', ')}`, {
      roleId: PLATFORM_ADMIN_ID,
      to: who,
      replacements: REPLACEMENTS,
    });
  }
  return out;
}
