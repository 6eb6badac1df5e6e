/**
 * What the platform-core escape hatches share: reading the arguments their
 * entries give them, and calling the authorization API so that a refusal
 * of the core becomes the legacy error (run.ts, `legacyError`), as a `call` step's does.
 */
import { legacyError, LegacyFailure } from '../../run.ts';
import type { CallCore, CoreCall, HatchApi } from '../../run.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

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
 * A list read with a legacy page: `limit` null (none, MongoDB's 0) or above
 * the list's largest page (`api.maxLimit`, the config's `search.maxLimit`, which
 * the core's lists read too) is read page by page, so it is never refused or cut.
 */
export async function listPages(api: HatchApi, path: string, query: Record<string, string>, skip: number, limit: number | null): Promise<{ results: unknown[]; total: number }> {
  const results: unknown[] = [];
  let total = 0;
  for (let at = skip; ; ) {
    const want = limit === null ? api.maxLimit : Math.min(api.maxLimit, limit - results.length);
    const { body } = await send(api.call, { method: 'GET', path, query: { ...query, skip: String(at), limit: String(want) } });
    const page = isPlainObject(body) && Array.isArray(body['results']) ? body['results'] : [];
    total = isPlainObject(body) && typeof body['total'] === 'number' ? body['total'] : 0;
    results.push(...page);
    at += page.length;
    if (page.length < want || at >= total || (limit !== null && results.length >= limit)) break;
  }
  return { results, total };
}
