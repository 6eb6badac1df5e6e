/**
 * What the platform-core escape hatches share: reading the arguments their
 * entries give them, and calling the authorization API so that a refusal
 * of the core becomes the legacy error (run.ts, `legacyError`), as a `call` step's does.
 */
import { legacyError, LegacyFailure } from '../../run.ts';
import type { CallCore, CoreAnswer, CoreCall, HatchApi } from '../../run.ts';
import { readPages } from '../../pages.ts';
import { isPlainObject, setOwn } from '../../../../../kernel/index.ts';

export type Obj = Record<string, unknown>;

export type Kind = 'accounts' | 'groups' | 'roles';
const KINDS: readonly Kind[] = ['accounts', 'groups', 'roles'];

/** A hatch's arguments come from the mapping table: a malformed one is the table's fault, said so. */
export function argsOf(value: unknown, hatch: string): Obj {
  if (!isPlainObject(value)) throw new LegacyFailure(`${hatch}: the mapping gave no arguments object`);
  return value;
}

export function text(args: Obj, key: string, hatch: string): string {
  const value = args[key];
  if (typeof value !== 'string' || value === '') throw new LegacyFailure(`${hatch}: the argument ${key} must be a non-empty string`);
  return value;
}

export function kindOf(args: Obj, hatch: string, allowed: readonly Kind[] = KINDS): Kind {
  const kind = args['kind'];
  if (!allowed.includes(kind as Kind)) throw new LegacyFailure(`${hatch}: kind must be one of ${allowed.join(', ')}`);
  return kind as Kind;
}

/** The arguments' schema for the account, group or role a hatch changes: its kind and id. */
export const TARGET_ARGUMENTS = { kind: { enum: KINDS }, id: { type: 'string', minLength: 1 } } as const;

export function pathOf(kind: Kind, id?: string): string {
  return id === undefined ? `/authorization/${kind}` : `/authorization/${kind}/${encodeURIComponent(id)}`;
}

/** Calls the core and answers its body; any status outside 2xx (or `accept`) fails the legacy call. */
export async function send(call: CallCore, request: Partial<CoreCall> & Pick<CoreCall, 'method' | 'path'>, accept: readonly number[] = []): Promise<{ status: number; body: unknown }> {
  const answer = await call({ query: {}, body: undefined, ...request });
  if ((answer.status < 200 || answer.status > 299) && !accept.includes(answer.status)) throw legacyError(answer);
  return answer;
}

/** The `data` of the authorization module's write answers (`{status, message, data}`). */
export function dataOf(body: unknown): unknown {
  return isPlainObject(body) && 'data' in body ? body['data'] : body;
}

/**
 * PATCHes an account, group or role and answers the updated document. The
 * platform takes the changes wrapped, `{"updates": {...}}` (REF
 * update-account, update-group, update-role); our core takes that form too.
 */
export async function patch(api: HatchApi, kind: Kind, id: string, updates: Obj): Promise<CoreAnswer> {
  const { body } = await send(api.call, { method: 'PATCH', path: pathOf(kind, id), body: { updates } });
  return { status: 200, body: dataOf(body) };
}

/**
 * The fields each authorization list filters on, as the platform's reference
 * names them (REF get-accounts, get-groups, get-roles): a filter on any other
 * field the platform would ignore and answer everything, so it is refused.
 */
const FILTER_FIELDS: Readonly<Record<Kind, readonly string[]>> = {
  accounts: ['username', 'firstname', 'email', 'provenance'],
  groups: ['name', 'description', 'provenance'],
  roles: ['name', 'description', 'provenance'],
};
const OPERATORS = { equals: 'multiEquals', contains: 'multiContains', startsWith: 'multiStartsWith' } as const;
export type Filter = keyof typeof OPERATORS;
export const FILTERS = Object.keys(OPERATORS) as readonly Filter[];

/** The list an authorization path names (`/authorization/groups`). */
export function listKindOf(path: string, hatch: string): Kind {
  const kind = KINDS.find((k) => path === pathOf(k));
  if (kind === undefined) throw new LegacyFailure(`${hatch}: ${path} is not an authorization list`);
  return kind;
}

/** One condition as the platform's list parameter (`multiEquals[username]`), set on `query`. */
export function setFilter(query: Record<string, string>, kind: Kind, op: Filter, field: string, value: string): void {
  if (!FILTER_FIELDS[kind].includes(field)) {
    throw new LegacyFailure(`The ${kind} list can filter only on ${FILTER_FIELDS[kind].join(', ')}, not on ${field}`);
  }
  const name = `${OPERATORS[op]}[${field}]`;
  if (Object.hasOwn(query, name)) throw new LegacyFailure(`The filter cannot be expressed: the list takes one ${op} condition on ${field}`);
  setOwn(query, name, value);
}

/**
 * A list read with a legacy page: `limit` null (none, MongoDB's 0) or above
 * the largest page asked of the upstream (`api.paging.pageMax`) is read page by
 * page, after the records each page brought (pages.ts), so it is never cut.
 */
export async function listPages(api: HatchApi, path: string, query: Record<string, string>, skip: number, limit: number | null, enough?: (items: readonly unknown[]) => boolean): Promise<{ results: unknown[]; total: number }> {
  const { items, total } = await readPages({
    skip,
    limit,
    paging: api.paging,
    ...(enough ? { enough } : {}),
    read: async (at, want) => {
      const { body } = await send(api.call, { method: 'GET', path, query: { ...query, skip: String(at), limit: String(want) } });
      return {
        items: isPlainObject(body) && Array.isArray(body['results']) ? body['results'] : [],
        total: isPlainObject(body) && typeof body['total'] === 'number' ? body['total'] : 0,
      };
    },
  });
  return { results: items, total };
}
