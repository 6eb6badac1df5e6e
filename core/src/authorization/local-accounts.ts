/**
 * Local accounts (docs/decisions.md D21): creating one with a password, and
 * setting a password. Passwords are stored only as scrypt hashes; a new
 * password ends the account's other sessions, so a leaked token dies with
 * the password it came from.
 */
import Joi from 'joi';
import { hashPassword } from '../auth/passwords.ts';
import { joiBody, newObjectId, repository } from '../../../kernel/index.ts';
import type { AnyRoute } from '../../../kernel/index.ts';
import { ACCOUNTS } from '../store/collections.ts';
import { findAccountById, accountParam } from './accounts.ts';
import { resolveAssignments } from './assignments.ts';
import { ACCOUNT, AUTHORIZATION_WRITE_ROLES, authorizationRoute, nowIso, ok, unwrap, withoutSecrets, writeAnswer, written } from './context.ts';
import type { AuthorizationDeps } from './context.ts';
import { endSessions } from './references.ts';
import { groupRefs, roleRefs, text, wrapperOrBare } from './schemas.ts';
import type { GroupRef, RoleRef } from './schemas.ts';

export const LOCAL_PROVENANCE = 'Local AAA';
export const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;

interface NewAccount {
  username: string;
  password: string;
  firstname?: string;
  email?: string;
  memberOf?: GroupRef[];
  assignedRoles?: RoleRef[];
}

const password = Joi.string().min(MIN_PASSWORD).max(MAX_PASSWORD).required();

// No edge spaces or control characters, and no colon: Basic credentials split at the first one (RFC 7617).
const USERNAME = /^[^\s:\p{Cc}](?:[^:\p{Cc}]*[^\s:\p{Cc}])?$/u;

const newAccount = wrapperOrBare<NewAccount>(
  'account',
  Joi.object({
    username: Joi.string().max(256).pattern(USERNAME).required().messages({
      'string.pattern.base': 'must not contain a colon or control characters, nor start or end with a space',
    }),
    password,
    firstname: text(256),
    email: text(320),
    memberOf: groupRefs,
    assignedRoles: roleRefs,
  }),
);

export function localAccountRoutes(deps: AuthorizationDeps): AnyRoute[] {
  const { store, auth } = deps;
  return [
    authorizationRoute({
      method: 'POST',
      path: '/authorization/accounts',
      name: 'createAccount',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: 'Create a local account with a password; it has no roles until given some',
      answer: writeAnswer(ACCOUNT),
      input: { body: newAccount },
      async handle({ body }, ctx) {
        const input = unwrap<NewAccount>(body, 'account');
        // Logins find accounts by username alone, so a name held under any provenance is taken.
        const taken = await auth.findAccount(input.username);
        if (taken) throw ACCOUNTS.duplicate({ ...taken, _id: String(taken['_id']), username: input.username }, 'username');
        const refs = await resolveAssignments({ store, release: deps.release, logger: ctx.logger }, { assignedRoles: input.assignedRoles ?? [], memberOf: input.memberOf ?? [] }, null, `account ${input.username}`);
        const now = nowIso();
        const account = await repository(store, ACCOUNTS).insert({
          _id: newObjectId(),
          username: input.username,
          firstname: input.firstname ?? input.username,
          ...(input.email !== undefined ? { email: input.email } : {}),
          provenance: LOCAL_PROVENANCE,
          inactive: false,
          loggedIn: false,
          memberOf: refs.memberOf,
          assignedRoles: refs.assignedRoles,
          gitTokens: {},
          _meta: { created: now, updated: now },
          passwordHash: await hashPassword(input.password),
        });
        return written(auth, ctx.logger, 'account created', { accountId: account['_id'], username: input.username }, `Successfully created account ${String(account['_id'])}.`, withoutSecrets(account));
      },
    }),
    authorizationRoute({
      method: 'PUT',
      path: '/authorization/accounts/:accountId/password',
      name: 'setAccountPassword',
      roles: AUTHORIZATION_WRITE_ROLES,
      description: "Set an account's password; its other sessions end",
      answer: writeAnswer(),
      input: { params: accountParam, body: joiBody<{ password: string }>(Joi.object({ password })) },
      async handle({ params, body }, ctx) {
        const account = await findAccountById(store, params.accountId);
        await repository(store, ACCOUNTS).replace({ ...account, passwordHash: await hashPassword(body.password), _meta: { ...(account['_meta'] as object | undefined), updated: nowIso() } });
        // Also drops cached Basic credentials, which would otherwise accept the old password for a while.
        auth.invalidate();
        const ended = await endSessions(store, auth.sessions, 'account', params.accountId, ctx.caller?.sessionId ?? null);
        ctx.logger.info('account password changed', { accountId: params.accountId, sessionsEnded: ended });
        return ok(`Successfully changed the password of account ${params.accountId}.`);
      },
    }),
  ];
}
