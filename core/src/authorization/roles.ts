/**
 * Roles: list, create, read, PATCH and DELETE, plus the method and view
 * catalogs roles are made of. Built-in roles are rebuilt from the routes at
 * every start, so editing them would be silently undone: they are refused.
 * Deleting a role removes it from every assignedRoles list.
 */
import Joi from 'joi';
import { answer, BadRequestError, BOOLEAN, closed, joiParams, joiQuery, newObjectId, repository, STRING, ValidationError } from '../../../kernel/index.ts';
import type { AnswerShape, AnyRoute, Doc, ErrorDetail, Store } from '../../../kernel/index.ts';
import { roles as roleType } from '../store/doc-types.ts';
import { AUTHORIZATION_READ_ROLES, AUTHORIZATION_WRITE_ROLES, authorizationRoute, resultsAnswer, ROLE, unwrap, writeAnswer, written } from './context.ts';
import { ROLES } from '../store/collections.ts';
import type { PlainDoc } from '../store/collections.ts';
import type { AuthorizationDeps } from './context.ts';

const METHOD_INFO = closed({ provenance: STRING, name: STRING, route: closed({ path: STRING, verb: STRING, fullPath: STRING }), deprecated: BOOLEAN });
import { listPage, listQuery } from '../http/list-query.ts';
import { dedupe, removeReferences, ROLE_REFS } from './references.ts';
import { idParam, text, updatesBody, wrapperOrBare } from './schemas.ts';

interface MethodRef { provenance: string; name: string }
interface ViewRef { provenance: string; path: string }
interface RoleFields {
  provenance?: string;
  name?: string;
  description?: string;
  allowedMethods?: MethodRef[];
  allowedViews?: ViewRef[];
}
interface NewRole extends RoleFields {
  provenance: string;
  name: string;
}

type RoleParams = { roleId: string };
const roleParam = joiParams<RoleParams>(idParam('roleId'));
const label = Joi.string().min(1).max(256).pattern(/^\S(?:.*\S)?$/).messages({ 'string.pattern.base': 'must not start or end with a space' });
const fields = {
  provenance: label,
  name: label,
  description: text(1024),
  allowedMethods: Joi.array().items(Joi.object({ provenance: label.required(), name: label.required() })).max(10_000),
  allowedViews: Joi.array().items(Joi.object({ provenance: label.required(), path: Joi.string().min(1).max(1024).required() })).max(10_000),
};
const roleUpdates = updatesBody<RoleFields>(fields, ['provenance', 'name']);
const newRole = wrapperOrBare<NewRole>('role', Joi.object({ ...fields, provenance: label.required(), name: label.required() }));

function findRole(store: Store, id: string): Promise<PlainDoc> {
  return repository(store, ROLES).get(id);
}

function assertCustom(role: Doc, action: string): void {
  if (role['builtIn'] !== true) return;
  const name = `${String(role['provenance'])}.${String(role['name'])}`;
  throw new BadRequestError(`Role ${String(role['_id'])} (${name}) is built in and cannot be ${action}: built-in roles are made from the routes at every start`);
}

/** A (provenance, name) pair names one role; the unique index is the last word, this refuses before any other check. */
async function assertNameFree(store: Store, provenance: string, name: string, self: string | null): Promise<void> {
  const field = (path: string) => roleType.fields.get(path)!;
  const found = await repository(store, ROLES).search({
    where: { kind: 'and', items: [{ kind: 'compare', op: 'eq', field: field('provenance'), value: provenance }, { kind: 'compare', op: 'eq', field: field('name'), value: name }] },
    sort: [{ field: field('_id'), direction: 1 }],
    skip: 0,
    limit: 2,
  });
  const other = found.docs.find((r) => r._id !== self);
  if (other) throw ROLES.duplicate({ _id: other._id, provenance, name }, 'name');
}

export function roleRoutes(deps: AuthorizationDeps): AnyRoute[] {
  const catalogQuery = joiQuery<{ limit?: number; skip: number }>(Joi.object({ limit: Joi.number().integer().min(0).max(deps.limits.maxLimit), skip: Joi.number().integer().min(0).default(0) }));
  const { store, auth } = deps;
  const roles = repository(store, ROLES);

  /** 400 naming every method and view that no route provides; answers the lists deduplicated. */
  function checkGrants(input: RoleFields): Pick<RoleFields, 'allowedMethods' | 'allowedViews'> {
    const out: Pick<RoleFields, 'allowedMethods' | 'allowedViews'> = {};
    const details: ErrorDetail[] = [];
    if (input.allowedMethods) {
      const known = new Set(deps.methods().map((m) => `${m.provenance}.${m.name}`));
      out.allowedMethods = dedupe(input.allowedMethods, (m) => `${m.provenance}.${m.name}`).map((m) => ({ provenance: m.provenance, name: m.name }));
      for (const m of out.allowedMethods) if (!known.has(`${m.provenance}.${m.name}`)) details.push({ parameter: 'allowedMethods', message: `${m.provenance}.${m.name} is not a known method` });
    }
    if (input.allowedViews) {
      const known = new Set(deps.views().map((v) => `${v.provenance} ${v.path}`));
      out.allowedViews = dedupe(input.allowedViews, (v) => `${v.provenance} ${v.path}`).map((v) => ({ provenance: v.provenance, path: v.path }));
      for (const v of out.allowedViews) if (!known.has(`${v.provenance} ${v.path}`)) details.push({ parameter: 'allowedViews', message: `${v.provenance} ${v.path} is not a known view` });
    }
    if (details.length > 0) throw new ValidationError(`Invalid body: ${details.map((d) => d.message).join('; ')}`, details);
    return out;
  }

  const catalog = (path: string, name: string, what: string, list: () => readonly unknown[], item: AnswerShape) =>
    authorizationRoute({
      method: 'GET',
      path,
      name,
      roles: AUTHORIZATION_READ_ROLES,
      description: `List the ${what} that roles can allow, as the routes declare them`,
      answer: resultsAnswer(item),
      input: { query: catalogQuery },
      async handle({ query }) {
        const all = list();
        const end = query.limit === undefined ? all.length : query.skip + query.limit;
        return { body: { results: all.slice(query.skip, end), total: all.length } };
      },
    });

  return [
    authorizationRoute({
      method: 'GET',
      path: '/authorization/roles',
      name: 'getRoles',
      roles: AUTHORIZATION_READ_ROLES,
      description: 'List roles with paging, sorting and filters: equals/contains/startsWith with their Field, and the platform\'s multiEquals[f], multiContains[f] and multiStartsWith[f] on name, provenance and description',
      answer: resultsAnswer(ROLE),
      input: { query: listQuery(roleType, deps.limits, { multi: true }) },
      async handle({ query }) {
        return listPage(roles.collection, query, (doc) => doc);
      },
    }),
    authorizationRoute({
      method: 'POST',
      path: '/authorization/roles',
      name: 'createRole',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: 'Create a role allowing existing methods and views',
      answer: writeAnswer(ROLE),
      input: { body: newRole },
      async handle({ body }, ctx) {
        const input = unwrap<NewRole>(body, 'role');
        await assertNameFree(store, input.provenance, input.name, null);
        const grants = checkGrants({ allowedMethods: input.allowedMethods ?? [], allowedViews: input.allowedViews ?? [] });
        const role = await roles.insert({ _id: newObjectId(), provenance: input.provenance, name: input.name, description: input.description ?? '', ...grants });
        return written(auth, ctx.logger, 'role created', { roleId: role['_id'], provenance: input.provenance, name: input.name }, `Successfully created role ${String(role['_id'])}.`, role);
      },
    }),
    authorizationRoute({
      method: 'GET',
      path: '/authorization/roles/:roleId',
      name: 'getRole',
      roles: AUTHORIZATION_READ_ROLES,
      description: 'Read one role',
      answer: answer(ROLE),
      input: { params: roleParam },
      async handle({ params }) {
        return { body: await findRole(store, params.roleId) };
      },
    }),
    authorizationRoute({
      method: 'PATCH',
      path: '/authorization/roles/:roleId',
      name: 'updateRole',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: 'Change a custom role: description and the allowedMethods and allowedViews lists (a list given replaces the old one), in the platform\'s form {updates: {...}} or bare; provenance and name only in the bare form (the platform cannot change them)',
      answer: writeAnswer(ROLE),
      input: { params: roleParam, body: roleUpdates },
      async handle({ params, body }, ctx) {
        const role = await findRole(store, params.roleId);
        assertCustom(role, 'changed');
        const updates = unwrap<RoleFields>(body, 'updates');
        await assertNameFree(store, updates.provenance ?? String(role['provenance']), updates.name ?? String(role['name']), params.roleId);
        const updated = await roles.replace({ ...role, ...updates, ...checkGrants(updates) });
        return written(auth, ctx.logger, 'role updated', { roleId: params.roleId, fields: Object.keys(updates) }, `Successfully updated role ${params.roleId}.`, updated);
      },
    }),
    authorizationRoute({
      method: 'DELETE',
      path: '/authorization/roles/:roleId',
      name: 'deleteRole',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: "Delete a custom role and remove it from every account's and group's assignedRoles",
      answer: writeAnswer(),
      input: { params: roleParam },
      async handle({ params }, ctx) {
        assertCustom(await findRole(store, params.roleId), 'deleted');
        await roles.collection.deleteOne(params.roleId);
        const changed = await removeReferences(store, ROLE_REFS, params.roleId);
        return written(auth, ctx.logger, 'role deleted', { roleId: params.roleId, referencesRemoved: changed }, `Successfully deleted ${params.roleId}.`);
      },
    }),
    catalog('/authorization/methods', 'getMethods', 'methods', deps.methods, METHOD_INFO),
    catalog('/authorization/views', 'getViews', 'views', deps.views, closed({ provenance: STRING, path: STRING })),
  ];
}
