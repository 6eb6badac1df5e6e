/**
 * The platform's generic list parameters over a list the core computes in
 * memory (the health reports are made at each call, not stored):
 * `equals`/`equalsField`, `contains`/`containsField`,
 * `startsWith`/`startsWithField`, `sort` + `order`, `skip` and `limit`
 * (Itential, "Use query parameters in API requests"; its clients look one
 * adapter up with `?equals=<name>&equalsField=id`). Each list declares the
 * fields it filters and sorts on, as text read from an entry; any other
 * field, or any other parameter, is a 400 naming it (the platform would
 * ignore it and answer everything: docs/real-platform.md).
 */
import Joi from 'joi';
import { joiQuery, ValidationError } from '../../../kernel/index.ts';
import type { Validator } from '../../../kernel/index.ts';

type Op = 'equals' | 'contains' | 'startsWith';
const OPS: readonly Op[] = ['equals', 'contains', 'startsWith'];

/** The platform's default page (its reference: "more than 25 adapters: GET health/adapters?limit=100"). */
export const HEALTH_DEFAULT_LIMIT = 25;
/** The health lists are short; a page this large is everything. */
const HEALTH_MAX_LIMIT = 1000;

export type MemoryListQuery = { limit: number; skip: number; sort?: string; order: 1 | -1 } & Partial<Record<Op | `${Op}Field`, string>>;

/** How a list reads each field it filters and sorts on, as text: a Map written in code, so no name from a query reaches a prototype. */
export type ListFields<T> = ReadonlyMap<string, (entry: T) => string>;

/** What every health entry (an application, an adapter) says of itself. */
export interface HealthEntry {
  readonly id: string;
  readonly package_id: string;
  readonly version: string;
  readonly type: string;
  readonly state: string;
}

type Field<T> = readonly [string, (entry: T) => string];

/** The fields every health entry lists by, with the kind's `own` before `state` and `after` it (the order the list's description names them in). */
export function entryFields<T extends HealthEntry>(own: readonly Field<T>[], after: readonly Field<T>[] = []): ListFields<T> {
  return new Map<string, (entry: T) => string>([
    ['id', (e) => e.id],
    ['package_id', (e) => e.package_id],
    ['version', (e) => e.version],
    ['type', (e) => e.type],
    ...own,
    ['state', (e) => e.state],
    ...after,
  ]);
}

export function memoryListQuery<T>(what: string, fields: ListFields<T>): Validator<string, MemoryListQuery> {
  const names = [...fields.keys()];
  const field = Joi.string()
    .valid(...names)
    .messages({ 'any.only': `is not a field of ${what} (fields: ${names.join(', ')})` });
  const keys: Record<string, Joi.Schema> = {
    limit: Joi.number().integer().min(0).max(HEALTH_MAX_LIMIT).default(HEALTH_DEFAULT_LIMIT),
    skip: Joi.number().integer().min(0).default(0),
    sort: field,
    order: Joi.number().valid(1, -1).default(1).messages({ 'any.only': 'must be 1 or -1' }),
  };
  for (const op of OPS) {
    keys[op] = Joi.string().max(1000).allow('');
    keys[`${op}Field`] = field;
  }
  const read = joiQuery(Joi.object<MemoryListQuery>(keys));
  return {
    ...(read.schema ? { schema: read.schema } : {}),
    validate(queryString) {
      const query = read.validate(queryString);
      for (const op of OPS) {
        const missing = query[op] === undefined ? (query[`${op}Field`] === undefined ? null : op) : query[`${op}Field`] === undefined ? `${op}Field` : null;
        if (missing === null) continue;
        const peer = missing === op ? `${op}Field` : op;
        throw new ValidationError(`Invalid query: ${op} and ${op}Field go together; ${missing} is missing`, [{ parameter: missing, message: `is needed with ${peer}` }]);
      }
      return query;
    },
  };
}

function matches<T>(entry: T, query: MemoryListQuery, fields: ListFields<T>): boolean {
  for (const op of OPS) {
    const value = query[op];
    const read = query[`${op}Field`] === undefined ? undefined : fields.get(query[`${op}Field`]!);
    if (value === undefined || read === undefined) continue;
    const text = read(entry);
    if (op === 'equals' ? text !== value : op === 'contains' ? !text.includes(value) : !text.startsWith(value)) return false;
  }
  return true;
}

/**
 * The page of `entries` the query asks for, and how many matched. Without
 * `sort` the list keeps its own order; a sort is stable, so entries that
 * compare equal keep it too.
 */
export function memoryPage<T>(entries: readonly T[], query: MemoryListQuery, fields: ListFields<T>): { results: T[]; total: number } {
  const selected = entries.filter((e) => matches(e, query, fields));
  const read = query.sort === undefined ? undefined : fields.get(query.sort);
  if (read) selected.sort((a, b) => query.order * (read(a) < read(b) ? -1 : read(a) > read(b) ? 1 : 0));
  return { results: selected.slice(query.skip, query.skip + query.limit), total: selected.length };
}
