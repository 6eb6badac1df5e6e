/**
 * Accounts: list, read and PATCH (`GET|PATCH /authorization/accounts/:id`),
 * where the legacy `/accounts/*` and `/groups/:id/members` operations are
 * rewritten onto. Listed arrays replace the old ones. Deactivating an
 * account ends its sessions at once, not at their next idle timeout.
 */
import Joi from 'joi';
import { answer, joiParams, repository } from '../../../kernel/index.ts';
import type { AnyRoute, Store } from '../../../kernel/index.ts';
import { ACCOUNTS } from '../store/collections.ts';
import type { PlainDoc } from '../store/collections.ts';
import { accounts as accountType } from '../store/doc-types.ts';
import { resolveAssignments } from './assignments.ts';
import { ACCOUNT, AUTHORIZATION_READ_ROLES, AUTHORIZATION_WRITE_ROLES, authorizationRoute, nowIso, ok, resultsAnswer, unwrap, withoutSecrets, writeAnswer } from './context.ts';
import type { AuthorizationDeps } from './context.ts';
import { listPage, listQuery } from '../http/list-query.ts';
import { endSessions } from './references.ts';
import { groupRefs, idParam, roleRefs, text, updatesBody } from './schemas.ts';
import type { GroupRef, RoleRef } from './schemas.ts';

export interface AccountUpdates {
  inactive?: boolean;
  email?: string;
  firstname?: string;
  assignedRoles?: RoleRef[];
  memberOf?: GroupRef[];
}

type AccountParams = { accountId: string };
export const accountParam = joiParams<AccountParams>(idParam('accountId'));

const accountUpdates = updatesBody<AccountUpdates>({
  inactive: Joi.boolean(),
  email: text(320),
  firstname: text(256),
  assignedRoles: roleRefs,
  memberOf: groupRefs,
});

export function findAccountById(store: Store, id: string): Promise<PlainDoc> {
  return repository(store, ACCOUNTS).get(id);
}

export function accountRoutes(deps: AuthorizationDeps): AnyRoute[] {
  const { store, auth } = deps;
  return [
    authorizationRoute({
      method: 'GET',
      path: '/authorization/accounts',
      name: 'getAccounts',
      roles: AUTHORIZATION_READ_ROLES,
      description: 'List accounts with paging, sorting and filters: equals/contains/startsWith with their Field, the platform\'s multiEquals[f], multiContains[f] and multiStartsWith[f] on username, firstname, email and provenance, inactive, and groupId=<groupId> (or memberOf=<groupId>) for the direct members of a group',
      answer: resultsAnswer(ACCOUNT),
      input: { query: listQuery(accountType, deps.limits, { memberOf: true, groupId: true, inactive: true, multi: true }) },
      async handle({ query }) {
        return listPage(repository(store, ACCOUNTS).collection, query, withoutSecrets);
      },
    }),
    authorizationRoute({
      method: 'GET',
      path: '/authorization/accounts/:accountId',
      name: 'getAccount',
      roles: AUTHORIZATION_READ_ROLES,
      description: 'Read one account',
      answer: answer(ACCOUNT),
      input: { params: accountParam },
      async handle({ params }) {
        return { body: withoutSecrets(await findAccountById(store, params.accountId)) };
      },
    }),
    authorizationRoute({
      method: 'PATCH',
      path: '/authorization/accounts/:accountId',
      name: 'updateAccount',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: 'Change an account: inactive, email, firstname, and the assignedRoles and memberOf lists (a list given replaces the old one)',
      answer: writeAnswer(ACCOUNT),
      input: { params: accountParam, body: accountUpdates },
      async handle({ params, body }, ctx) {
        const account = await findAccountById(store, params.accountId);
        const updates = unwrap<AccountUpdates>(body, 'updates');
        const who = `account ${String(account['username'])}`;
        const refs = await resolveAssignments({ store, release: deps.release, logger: ctx.logger }, updates, account, who);
        const updated: PlainDoc = { ...account, ...updates, ...refs, _meta: { ...(account['_meta'] as object | undefined), updated: nowIso() } };
        const deactivated = updates.inactive === true;
        if (deactivated) updated['loggedIn'] = false;
        await repository(store, ACCOUNTS).replace(updated);
        auth.invalidate();
        const ended = deactivated ? await endSessions(store, auth.sessions, 'account', params.accountId) : 0;
        ctx.logger.info('account updated', { accountId: params.accountId, fields: Object.keys(updates), sessionsEnded: ended });
        return ok(`Successfully updated account ${params.accountId}.`, withoutSecrets(updated));
      },
    }),
  ];
}
