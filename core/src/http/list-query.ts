/**
 * The query of list routes (authorization, workflows), in the platform's generic form:
 * `limit`, `skip`, `sort` + `order`, and one filter per operator written as
 * a value and the field it applies to (`equals=x&equalsField=name`). Fields
 * come from the search registry, so only searchable fields filter and only
 * indexed ones sort.
 *
 * The authorization lists also read the filters the platform documents for
 * them (Itential's API reference, get-accounts, get-groups, get-roles):
 * `multiEquals[field]=`, `multiContains[field]=` and `multiStartsWith[field]=`
 * on their text fields, any number of fields at once, and on accounts
 * `groupId=` (the direct members of a group). Every filter given applies.
 */
import Joi from 'joi';
import { and, buildLeaf, joiQuery, LeafError, pageBytes, ValidationError } from '../../../kernel/index.ts';
import type { Condition, Doc, DocCollection, DocType, Operator, SearchQuery, Validator } from '../../../kernel/index.ts';

/** A list without `limit` gives this many, as the platform's lists do (the search's default is the config's). */
export const DEFAULT_LIMIT = 25;

/** The largest page a list gives: the config's `search.maxLimit`, which the gateway pages with too. */
export interface ListLimits {
  readonly maxLimit: number;
  /** `search.maxPageMb`: the store refuses a page whose documents come to more (SearchQuery.maxBytes). */
  readonly maxPageMb: number;
}
const LEAF_LIMITS = { maxInItems: 100, maxValueLength: 1000 };

/** Query parameter naming the value → the search operator it applies. */
const FILTERS: ReadonlyArray<readonly [param: 'equals' | 'contains' | 'startsWith', op: Operator]> = [
  ['equals', 'equals'],
  ['contains', 'contains'],
  ['startsWith', 'starts-with'],
];

/** The platform's bracket filters of the authorization lists → the search operator each applies. */
const MULTI_FILTERS: ReadonlyArray<readonly [param: 'multiEquals' | 'multiContains' | 'multiStartsWith', op: Operator]> = [
  ['multiEquals', 'equals'],
  ['multiContains', 'contains'],
  ['multiStartsWith', 'starts-with'],
];

interface RawList {
  limit: number;
  skip: number;
  sort?: string;
  order: 1 | -1;
  equals?: string;
  equalsField?: string;
  contains?: string;
  containsField?: string;
  startsWith?: string;
  startsWithField?: string;
  memberOf?: string;
  groupId?: string;
  inactive?: boolean;
}

export interface ListOptions {
  /** `memberOf=<groupId>`: direct members of a group (what legacy `GET /groups/:id/members` maps to). */
  readonly memberOf?: boolean;
  /** `groupId=<groupId>`: the same, under the name the platform's accounts list documents. */
  readonly groupId?: boolean;
  /** `inactive=true|false`. */
  readonly inactive?: boolean;
  /** `multiEquals[f]`, `multiContains[f]`, `multiStartsWith[f]` on the type's text fields. */
  readonly multi?: boolean;
}

/** The bracket parameters a type takes: one per operator and text field, so the interface document names each. */
function multiParams(type: DocType): Array<{ param: string; op: Operator; path: string }> {
  const text = [...type.fields.values()].filter((f) => f.type === 'string' && !f.array).map((f) => f.path);
  return MULTI_FILTERS.flatMap(([param, op]) => text.map((path) => ({ param: `${param}[${path}]`, op, path })));
}

export function pageParams(limits: ListLimits): { limit: Joi.NumberSchema; skip: Joi.NumberSchema } {
  return {
    limit: Joi.number().integer().min(0).max(limits.maxLimit).default(Math.min(DEFAULT_LIMIT, limits.maxLimit)),
    skip: Joi.number().integer().min(0).default(0),
  };
}

function schema(type: DocType, limits: ListLimits, options: ListOptions): Joi.ObjectSchema<RawList> {
  const fields = [...type.fields.keys()];
  const sortable = [...type.fields.values()].filter((f) => f.sortable).map((f) => f.path);
  const fieldParam = Joi.string()
    .valid(...fields)
    .messages({ 'any.only': `is not a searchable field of ${type.name} (fields: ${fields.join(', ')})` });
  const keys: Record<string, Joi.Schema> = {
    ...pageParams(limits),
    sort: Joi.string()
      .valid(...sortable)
      .messages({ 'any.only': `is not a sortable field of ${type.name} (sortable: ${sortable.join(', ')})` }),
    order: Joi.number().valid(1, -1).default(1).messages({ 'any.only': 'must be 1 or -1' }),
  };
  for (const [param] of FILTERS) {
    keys[param] = Joi.string().max(LEAF_LIMITS.maxValueLength).allow('');
    keys[`${param}Field`] = fieldParam;
  }
  if (options.memberOf) keys['memberOf'] = Joi.string().max(64);
  if (options.groupId) keys['groupId'] = Joi.string().max(64);
  if (options.inactive) keys['inactive'] = Joi.boolean();
  if (options.multi) for (const { param } of multiParams(type)) keys[param] = Joi.string().max(LEAF_LIMITS.maxValueLength).allow('');
  return Joi.object<RawList>(keys);
}

function leaf(type: DocType, parameter: string, op: Operator, path: string, value: string | boolean): Condition {
  try {
    return buildLeaf(type, op, path, value, LEAF_LIMITS);
  } catch (err) {
    if (!(err instanceof LeafError)) throw err;
    throw new ValidationError(`Invalid query: ${parameter} ${err.message}`, [{ parameter, message: err.message }]);
  }
}

/** Reads a list query into a store search, ordered totally (`_id` last) so pages never overlap. */
export function listQuery(type: DocType, limits: ListLimits, options: ListOptions = {}): Validator<string, SearchQuery> {
  const read = joiQuery(schema(type, limits, options));
  const multi = options.multi ? multiParams(type) : [];
  return {
    validate(queryString) {
      const q = read.validate(queryString);
      // The bracket parameters are read by the names multiParams made, never by keys of the query.
      const given = q as RawList & Readonly<Record<string, unknown>>;
      const conditions: Condition[] = [];
      for (const [param, op] of FILTERS) {
        const value = q[param];
        const path = q[`${param}Field`];
        if (value === undefined && path === undefined) continue;
        if (value === undefined || path === undefined) {
          const missing = value === undefined ? param : `${param}Field`;
          throw new ValidationError(`Invalid query: ${param} and ${param}Field go together; ${missing} is missing`, [{ parameter: missing, message: `is needed with ${value === undefined ? `${param}Field` : param}` }]);
        }
        conditions.push(leaf(type, param, op, path, value));
      }
      for (const { param, op, path } of multi) {
        const value = given[param];
        if (typeof value === 'string') conditions.push(leaf(type, param, op, path, value));
      }
      if (q.memberOf !== undefined) conditions.push(leaf(type, 'memberOf', 'equals', 'memberOf.groupId', q.memberOf));
      if (q.groupId !== undefined) conditions.push(leaf(type, 'groupId', 'equals', 'memberOf.groupId', q.groupId));
      if (q.inactive !== undefined) conditions.push(leaf(type, 'inactive', 'equals', 'inactive', q.inactive));
      const sortPath = q.sort ?? type.defaultSort;
      const sort = [{ field: type.fields.get(sortPath)!, direction: q.order }];
      if (sortPath !== '_id') sort.push({ field: type.fields.get('_id')!, direction: q.order });
      return { where: and(conditions), sort, skip: q.skip, limit: q.limit, maxBytes: pageBytes(limits) };
    },
  };
}

export async function listPage(collection: DocCollection, query: SearchQuery, view: (doc: Doc) => Doc): Promise<{ body: { results: Doc[]; total: number } }> {
  const page = await collection.search(query);
  return { body: { results: page.docs.map(view), total: page.total } };
}
