/**
 * Shared by the workflow-engine escape hatches (not a hatch itself): core
 * calls that fail the legacy way, and the legacy list options (MongoDB-style
 * queries, `fields`, `sort`) as search parameters.
 */
import { LegacyFailure } from '../run.ts';
import type { CoreCall, HatchApi } from '../run.ts';
import { translateQuery, UntranslatableQuery } from '../translate.ts';

export interface Envelope {
  readonly message?: unknown;
  readonly data?: unknown;
  readonly metadata?: { readonly skip?: unknown; readonly limit?: unknown; readonly total?: unknown };
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function messageOf(body: unknown): string {
  if (typeof body === 'string') return body;
  if (isObject(body) && typeof body['message'] === 'string') return body['message'];
  return JSON.stringify(body);
}

/** A core call whose failure becomes the legacy error, as a `call` step's does. */
export async function callOk(api: HatchApi, call: Omit<CoreCall, 'query' | 'body'> & { query?: Record<string, string>; body?: unknown }): Promise<Envelope> {
  const answer = await api.call({ query: {}, body: undefined, ...call });
  if (answer.status < 200 || answer.status > 299) throw new LegacyFailure(messageOf(answer.body), answer.status);
  return isObject(answer.body) ? (answer.body as Envelope) : {};
}

/** `q` for a legacy query, refusing the way the `translateQuery` step does. */
export function qOf(query: unknown): Record<string, string> {
  try {
    return translateQuery(query);
  } catch (err) {
    if (err instanceof UntranslatableQuery) throw new LegacyFailure(`This query cannot be expressed in the operations-manager search: ${err.message}`);
    throw err;
  }
}

/**
 * A MongoDB-style projection (`{"name": 1}` or `{"variables": 0}`) as
 * `include` or `exclude`. Mongo refuses to mix the two except for `_id`,
 * so inclusion wins and only `_id: 0` is carried beside it.
 */
export function projectionOf(fields: unknown): Record<string, string> {
  if (!isObject(fields)) return {};
  const on = Object.keys(fields).filter((k) => fields[k] === 1 || fields[k] === true);
  const off = Object.keys(fields).filter((k) => fields[k] === 0 || fields[k] === false);
  if (on.length > 0) return { include: on.join(','), ...(off.includes('_id') ? { exclude: '_id' } : {}) };
  return off.length > 0 ? { exclude: off.join(',') } : {};
}

/** The legacy `{field, direction}` sort as `sort` and `order`; directions were 1/-1 or asc/desc. */
export function sortOf(sort: unknown): Record<string, string> {
  if (!isObject(sort) || typeof sort['field'] !== 'string') return {};
  const d = String(sort['direction'] ?? 1).toLowerCase();
  return { sort: sort['field'], order: d === '-1' || d === 'desc' || d === 'descending' ? '-1' : '1' };
}

/** The search's largest page (decisions.md item 8). */
export const MAX_LIMIT = 1000;

/**
 * Legacy page numbers, passed on as text only when given. A legacy limit of
 * 0 meant no limit (MongoDB's), while the new search's `limit=0` answers only
 * the total, so it becomes the largest page.
 */
export function pageOf(page: unknown): Record<string, string> {
  if (!isObject(page)) return {};
  const out: Record<string, string> = {};
  if (page['skip'] !== undefined && page['skip'] !== null) out['skip'] = String(page['skip']);
  if (page['limit'] !== undefined && page['limit'] !== null) out['limit'] = Number(page['limit']) === 0 ? String(MAX_LIMIT) : String(page['limit']);
  return out;
}

/** The legacy results wrapper of a search answer. */
export function wrapper(found: Envelope): { results: unknown; skip: unknown; limit: unknown; total: unknown } {
  return { results: found.data ?? [], skip: found.metadata?.skip, limit: found.metadata?.limit, total: found.metadata?.total };
}
