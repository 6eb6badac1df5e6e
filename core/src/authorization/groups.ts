/**
 * Groups: list, create, read, PATCH and DELETE. A group may be a member of
 * other groups (its members inherit their roles), so memberships that would
 * close a cycle are refused. Deleting a group removes it from every
 * account's, group's and service account's memberOf.
 */
import Joi from 'joi';
import { answer, joiParams, newObjectId, repository } from '../../../kernel/index.ts';
import type { AnyRoute, Store } from '../../../kernel/index.ts';
import { GROUPS } from '../store/collections.ts';
import type { PlainDoc } from '../store/collections.ts';
import { groups as groupType } from '../store/doc-types.ts';
import { resolveAssignments } from './assignments.ts';
import { AUTHORIZATION_READ_ROLES, AUTHORIZATION_WRITE_ROLES, authorizationRoute, GROUP, nowIso, resultsAnswer, unwrap, writeAnswer, written } from './context.ts';
import type { AuthorizationDeps } from './context.ts';
import { listPage, listQuery } from '../http/list-query.ts';
import { assertNoCycle, GROUP_REFS, removeReferences } from './references.ts';
import { groupRefs, idParam, roleRefs, text, updatesBody, wrapperOrBare } from './schemas.ts';
import type { GroupRef, RoleRef } from './schemas.ts';

const DEFAULT_PROVENANCE = 'Local AAA';

interface GroupFields {
  name?: string;
  description?: string;
  inactive?: boolean;
  memberOf?: GroupRef[];
  assignedRoles?: RoleRef[];
}
interface NewGroup extends GroupFields {
  name: string;
  provenance?: string;
}

type GroupParams = { groupId: string };
const groupParam = joiParams<GroupParams>(idParam('groupId'));
const name = Joi.string().min(1).max(256).pattern(/^\S(?:.*\S)?$/).messages({ 'string.pattern.base': 'must not start or end with a space' });
const fields = { name, description: text(1024), inactive: Joi.boolean(), memberOf: groupRefs, assignedRoles: roleRefs };
const groupUpdates = updatesBody<GroupFields>(fields);
const newGroup = wrapperOrBare<NewGroup>('group', Joi.object({ ...fields, name: name.required(), provenance: Joi.string().min(1).max(256) }));

function findGroup(store: Store, id: string): Promise<PlainDoc> {
  return repository(store, GROUPS).get(id);
}

/** A (name, provenance) pair names one group; the unique index is the last word, this gives the clear message. */
async function assertNameFree(store: Store, groupName: string, provenance: string, self: string | null): Promise<void> {
  const field = (path: string) => groupType.fields.get(path)!;
  const found = await repository(store, GROUPS).search({
    where: { kind: 'and', items: [{ kind: 'compare', op: 'eq', field: field('name'), value: groupName }, { kind: 'compare', op: 'eq', field: field('provenance'), value: provenance }] },
    sort: [{ field: field('_id'), direction: 1 }],
    skip: 0,
    limit: 2,
  });
  const other = found.docs.find((g) => g._id !== self);
  if (other) throw GROUPS.duplicate({ _id: other._id, name: groupName, provenance }, 'name');
}

export function groupRoutes(deps: AuthorizationDeps): AnyRoute[] {
  const { store, auth } = deps;
  const groups = repository(store, GROUPS);
  return [
    authorizationRoute({
      method: 'GET',
      path: '/authorization/groups',
      name: 'getGroups',
      roles: AUTHORIZATION_READ_ROLES,
      description: 'List groups with paging, sorting and filters: equals/contains/startsWith with their Field, the platform\'s multiEquals[f], multiContains[f] and multiStartsWith[f] on name, description and provenance, inactive, and memberOf=<groupId> for the groups directly inside a group',
      answer: resultsAnswer(GROUP),
      input: { query: listQuery(groupType, deps.limits, { memberOf: true, inactive: true, multi: true }) },
      async handle({ query }) {
        return listPage(groups.collection, query, (doc) => doc);
      },
    }),
    authorizationRoute({
      method: 'POST',
      path: '/authorization/groups',
      name: 'createGroup',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: 'Create a group with its roles and the groups it is a member of',
      answer: writeAnswer(GROUP),
      input: { body: newGroup },
      async handle({ body }, ctx) {
        const input = unwrap<NewGroup>(body, 'group');
        const provenance = input.provenance ?? DEFAULT_PROVENANCE;
        await assertNameFree(store, input.name, provenance, null);
        const refs = await resolveAssignments({ store, release: deps.release, logger: ctx.logger }, { assignedRoles: input.assignedRoles ?? [], memberOf: input.memberOf ?? [] }, null, `group ${input.name}`);
        const now = nowIso();
        const group = await groups.insert({
          _id: newObjectId(),
          name: input.name,
          description: input.description ?? '',
          provenance,
          memberOf: refs.memberOf,
          assignedRoles: refs.assignedRoles,
          inactive: input.inactive ?? false,
          _meta: { created: now, updated: now },
        });
        return written(auth, ctx.logger, 'group created', { groupId: group['_id'], name: input.name }, `Successfully created group ${String(group['_id'])}.`, group);
      },
    }),
    authorizationRoute({
      method: 'GET',
      path: '/authorization/groups/:groupId',
      name: 'getGroup',
      roles: AUTHORIZATION_READ_ROLES,
      description: 'Read one group',
      answer: answer(GROUP),
      input: { params: groupParam },
      async handle({ params }) {
        return { body: await findGroup(store, params.groupId) };
      },
    }),
    authorizationRoute({
      method: 'PATCH',
      path: '/authorization/groups/:groupId',
      name: 'updateGroup',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: 'Change a group: name, description, inactive, and the memberOf and assignedRoles lists (a list given replaces the old one)',
      answer: writeAnswer(GROUP),
      input: { params: groupParam, body: groupUpdates },
      async handle({ params, body }, ctx) {
        const group = await findGroup(store, params.groupId);
        const updates = unwrap<GroupFields>(body, 'updates');
        const groupName = updates.name ?? String(group['name']);
        await assertNameFree(store, groupName, String(group['provenance'] ?? DEFAULT_PROVENANCE), params.groupId);
        const refs = await resolveAssignments({ store, release: deps.release, logger: ctx.logger }, updates, group, `group ${groupName}`);
        if (refs.memberOf) await assertNoCycle(store, params.groupId, refs.memberOf);
        const updated = await groups.replace({ ...group, ...updates, ...refs, _meta: { ...(group['_meta'] as object | undefined), updated: nowIso() } });
        return written(auth, ctx.logger, 'group updated', { groupId: params.groupId, fields: Object.keys(updates) }, `Successfully updated group ${params.groupId}.`, updated);
      },
    }),
    authorizationRoute({
      method: 'DELETE',
      path: '/authorization/groups/:groupId',
      name: 'deleteGroup',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: "Delete a group and remove it from every account's and group's memberOf",
      answer: writeAnswer(),
      input: { params: groupParam },
      async handle({ params }, ctx) {
        await groups.delete(params.groupId);
        const changed = await removeReferences(store, GROUP_REFS, params.groupId);
        return written(auth, ctx.logger, 'group deleted', { groupId: params.groupId, referencesRemoved: changed }, `Successfully deleted ${params.groupId}.`);
      },
    }),
  ];
}
