/**
 * Service accounts for OAuth client credentials (`POST /oauth/token`). The
 * client secret is shown once, in the answer that creates it; only its
 * scrypt hash is stored, under the client id as `_id`, which is where the
 * token route looks it up.
 */
import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import { hashPassword } from '../auth/passwords.ts';
import { closed, joiBody, joiParams, joiQuery, newUuid, pageBytes, repository, STRING } from '../../../kernel/index.ts';
import type { AnswerShape, AnyRoute, Doc, FieldDef } from '../../../kernel/index.ts';
import { resolveAssignments } from './assignments.ts';
import { AUTHORIZATION_WRITE_ROLES, authorizationRoute, nowIso, ok, resultsAnswer, SERVICE_ACCOUNT, writeAnswer, written } from './context.ts';
import { SERVICE_ACCOUNTS } from '../store/collections.ts';
import type { AuthorizationDeps } from './context.ts';
import { pageParams } from '../http/list-query.ts';
import { endSessions } from './references.ts';
import { groupRefs, idParam, roleRefs, text } from './schemas.ts';
import type { GroupRef, RoleRef } from './schemas.ts';

const SERVICE_PROVENANCE = 'Service Account';

interface NewServiceAccount {
  name: string;
  description?: string;
  assignedRoles?: RoleRef[];
  memberOf?: GroupRef[];
}

const newServiceAccount = Joi.object({
  name: Joi.string().min(1).max(256).pattern(/^\S(?:.*\S)?$/).required().messages({ 'string.pattern.base': 'must not start or end with a space' }),
  description: text(1024),
  assignedRoles: roleRefs,
  memberOf: groupRefs,
});

/** Columns the store keeps for service_accounts (its `name` index), outside the search registry. */
function column(path: string): FieldDef {
  return { path, type: 'string', array: false, arrayOfObjects: null, dateEncoding: null, sortable: true, textSearch: false };
}

/** What a client may see of a service account: never the secret's hash. */
function publicView(doc: Doc): Doc {
  const { _id, secretHash: _secret, ...rest } = doc;
  return { client_id: _id, ...rest };
}

export function serviceAccountRoutes(deps: AuthorizationDeps): AnyRoute[] {
  const { store, auth } = deps;
  const services = repository(store, SERVICE_ACCOUNTS);
  return [
    authorizationRoute({
      method: 'POST',
      path: '/oauth/serviceAccounts',
      name: 'createServiceAccount',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: 'Create a service account; the answer holds its client id and the only copy of its secret',
      answer: writeAnswer(closed({ ...(SERVICE_ACCOUNT['properties'] as Record<string, AnswerShape>), client_secret: STRING })),
      input: { body: joiBody<NewServiceAccount>(newServiceAccount) },
      async handle({ body }, ctx) {
        const refs = await resolveAssignments({ store, release: deps.release, logger: ctx.logger }, { assignedRoles: body.assignedRoles ?? [], memberOf: body.memberOf ?? [] }, null, `service account ${body.name}`);
        const secret = randomBytes(32).toString('hex');
        const now = nowIso();
        const doc = await services.insert({
          _id: newUuid(),
          name: body.name,
          description: body.description ?? '',
          provenance: SERVICE_PROVENANCE,
          assignedRoles: refs.assignedRoles,
          memberOf: refs.memberOf,
          inactive: false,
          _meta: { created: now, updated: now },
          secretHash: await hashPassword(secret),
        });
        return written(auth, ctx.logger, 'service account created', { clientId: doc['_id'], name: body.name }, `Successfully created service account ${String(doc['_id'])}. Keep the client secret: it is not shown again.`, { ...publicView(doc), client_secret: secret });
      },
    }),
    authorizationRoute({
      method: 'GET',
      path: '/oauth/serviceAccounts',
      name: 'getServiceAccounts',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: 'List service accounts (never their secrets), by name',
      answer: resultsAnswer(SERVICE_ACCOUNT),
      input: { query: joiQuery<{ limit: number; skip: number }>(Joi.object(pageParams(deps.limits))) },
      async handle({ query }) {
        const sort = [{ field: column('name'), direction: 1 as const }, { field: column('_id'), direction: 1 as const }];
        const page = await services.search({ where: null, sort, skip: query.skip, limit: query.limit, maxBytes: pageBytes(deps.limits) });
        return { body: { results: page.docs.map(publicView), total: page.total } };
      },
    }),
    authorizationRoute({
      method: 'DELETE',
      path: '/oauth/serviceAccounts/:clientId',
      name: 'deleteServiceAccount',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: 'Delete a service account; the tokens it was given stop working',
      answer: writeAnswer(),
      input: { params: joiParams<{ clientId: string }>(idParam('clientId')) },
      async handle({ params }, ctx) {
        await services.delete(params.clientId);
        auth.invalidate();
        const ended = await endSessions(store, auth.sessions, 'service', params.clientId);
        ctx.logger.info('service account deleted', { clientId: params.clientId, sessionsEnded: ended });
        return ok(`Successfully deleted ${params.clientId}.`);
      },
    }),
  ];
}
