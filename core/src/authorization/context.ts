/**
 * What the authorization module is given, and the conventions its routes
 * share: provenance, roles, the `{status, message, data}` answer of writes,
 * and the views of documents that leave the module (never with secrets).
 */
import type { AuthService } from '../auth/service.ts';
import { answer, arrayOf, BOOLEAN, closed, INTEGER, OBJECT, oneOfValues, routeHelper, stored, STRING } from '../../../kernel/index.ts';
import type { MethodInfo, ViewInfo } from '../auth/roles.ts';
import type { AnswerShape, Doc, Logger, Store } from '../../../kernel/index.ts';
import type { ListLimits } from '../http/list-query.ts';

export interface AuthorizationDeps {
  readonly store: Store;
  readonly auth: AuthService;
  /** The release the platform claims to be; decides whether Platform.admin may still be assigned. */
  readonly release: string;
  readonly logger: Logger;
  /** Catalogs made from the route table, read when asked so they always match the mounted routes. */
  readonly methods: () => readonly MethodInfo[];
  readonly views: () => readonly ViewInfo[];
  /** The largest page a list gives (the config's `search.maxLimit`). */
  readonly limits: ListLimits;
}

export const PROVENANCE = 'Authorization';
export const AUTHORIZATION_READ_ROLES = ['admin', 'apiread', 'support'] as const;
export const AUTHORIZATION_WRITE_ROLES = ['admin'] as const;
/** Every route of the module (accounts, groups, roles, local and service accounts) is made by this. */
export const authorizationRoute = routeHelper({ provenance: PROVENANCE, shape: 'plain' });

/** The shapes of the documents the module answers (never with secrets), for the routes' `answer`. */
const META = stored({ created: STRING, updated: STRING }, []);
const MEMBER_OF = arrayOf(closed({ groupId: STRING, aaaManaged: BOOLEAN }));
const ASSIGNED_ROLES = arrayOf(closed({ roleId: STRING }));
export const ACCOUNT = stored(
  { _id: STRING, username: STRING, firstname: STRING, email: STRING, provenance: STRING, inactive: BOOLEAN, loggedIn: BOOLEAN, lastLogin: STRING, memberOf: MEMBER_OF, assignedRoles: ASSIGNED_ROLES, gitTokens: OBJECT, _meta: META },
  ['_id', 'username'],
);
export const GROUP = stored({ _id: STRING, name: STRING, description: STRING, provenance: STRING, memberOf: MEMBER_OF, assignedRoles: ASSIGNED_ROLES, inactive: BOOLEAN, _meta: META }, ['_id', 'name']);
export const ROLE = stored(
  { _id: STRING, provenance: STRING, name: STRING, description: STRING, allowedMethods: arrayOf(closed({ provenance: STRING, name: STRING })), allowedViews: arrayOf(closed({ provenance: STRING, path: STRING })), builtIn: BOOLEAN },
  ['_id', 'provenance', 'name'],
);
export const SERVICE_ACCOUNT = stored({ client_id: STRING, name: STRING, description: STRING, provenance: STRING, assignedRoles: ASSIGNED_ROLES, memberOf: MEMBER_OF, inactive: BOOLEAN, _meta: META }, ['client_id', 'name']);

/** A page of documents: `{results, total}`. */
export function resultsAnswer(item: AnswerShape) {
  return answer(closed({ results: arrayOf(item), total: INTEGER }));
}

/** The answer of a write (`ok`): status, message, and the document when there is one. */
export function writeAnswer(data?: AnswerShape) {
  return answer(data ? closed({ status: oneOfValues('OK'), message: STRING, data }) : closed({ status: oneOfValues('OK'), message: STRING }));
}

export interface WriteAnswer {
  readonly status: 'OK';
  readonly message: string;
  readonly data?: unknown;
}

export function ok(message: string, data?: unknown): { body: WriteAnswer } {
  return { body: data === undefined ? { status: 'OK', message } : { status: 'OK', message, data } };
}

/**
 * How a write ends: cached callers hold the rights it may have changed, so they are dropped before the
 * answer (core/src/authorization/routes.ts); then the change is logged and answered as `ok` does.
 */
export function written(auth: Pick<AuthService, 'invalidate'>, logger: Logger, event: string, facts: Record<string, unknown>, message: string, data?: unknown): { body: WriteAnswer } {
  auth.invalidate();
  logger.info(event, facts);
  return ok(message, data);
}

/** Top-level properties that must never leave the module, whatever the document. */
const SECRETS = ['passwordHash', 'secretHash'] as const;

export function withoutSecrets(doc: Doc): Doc {
  const out: Doc = { ...doc };
  for (const key of SECRETS) delete out[key];
  return out;
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** `{updates: {...}}` or `{account: {...}}` bodies, and their bare forms, read the same. */
export function unwrap<T extends object>(body: T | Record<string, T>, key: string): T {
  const wrapped = (body as Record<string, unknown>)[key];
  return (wrapped !== undefined ? wrapped : body) as T;
}
