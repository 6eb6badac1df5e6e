/**
 * The query of the workflow list, in the platform's generic filter form
 * (`equals=x&equalsField=name`, as the operations-manager automations list
 * takes it): `limit`, `skip`, `sort` + `order`, and one equals / contains /
 * startsWith filter each on a field of the workflows registry. Values are
 * read by the field's type, so `equalsField=_id` wants a UUID.
 */
import Joi from 'joi';
import { ValidationError } from '../errors.ts';
import type { Validator } from '../http/route.ts';
import { joiQuery } from '../http/validate.ts';
import { and } from '../search/conditions.ts';
import type { Condition, SortKey } from '../search/conditions.ts';
import { workflows as workflowType } from '../search/fields.ts';
import { buildLeaf, LeafError } from '../search/leaf.ts';
import type { Operator } from '../search/leaf.ts';
import type { SearchQuery } from '../store/types.ts';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 1000;
const LEAF_LIMITS = { maxInItems: 100, maxValueLength: 1000 };

/** Query parameter naming the value → the search operator it applies. */
const FILTERS = [
  ['equals', 'equals'],
  ['contains', 'contains'],
  ['startsWith', 'starts-with'],
] as const satisfies ReadonlyArray<readonly [string, Operator]>;

type FilterParam = (typeof FILTERS)[number][0];
type RawList = { limit: number; skip: number; order: 1 | -1; sort?: string } & { [P in FilterParam | `${FilterParam}Field`]?: string };

const fields = [...workflowType.fields.keys()];
const sortable = [...workflowType.fields.values()].filter((f) => f.sortable).map((f) => f.path);
const fieldParam = Joi.string()
  .valid(...fields)
  .messages({ 'any.only': `is not a searchable field of workflows (fields: ${fields.join(', ')})` });

function schema(): Joi.ObjectSchema<RawList> {
  const keys: Record<string, Joi.Schema> = {
    limit: Joi.number().integer().min(0).max(MAX_LIMIT).default(DEFAULT_LIMIT),
    skip: Joi.number().integer().min(0).default(0),
    sort: Joi.string().valid(...sortable).messages({ 'any.only': `is not a sortable field of workflows (sortable: ${sortable.join(', ')})` }),
    order: Joi.number().valid(1, -1).default(1).messages({ 'any.only': 'must be 1 or -1' }),
  };
  for (const [param] of FILTERS) {
    keys[param] = Joi.string().max(LEAF_LIMITS.maxValueLength).allow('');
    keys[`${param}Field`] = fieldParam;
  }
  let out = Joi.object<RawList>(keys);
  for (const [param] of FILTERS) out = out.and(param, `${param}Field`);
  return out;
}

function leaf(parameter: string, op: Operator, path: string, value: string): Condition {
  try {
    return buildLeaf(workflowType, op, path, value, LEAF_LIMITS);
  } catch (err) {
    if (!(err instanceof LeafError)) throw err;
    throw new ValidationError(`Invalid query: ${parameter} ${err.message}`, [{ parameter, message: err.message }]);
  }
}

/** Reads a list query into a store search, ordered totally (`_id` last) so pages never overlap. */
export function workflowListQuery(): Validator<string, SearchQuery> {
  const read = joiQuery(schema());
  return {
    validate(queryString) {
      const q = read.validate(queryString);
      const conditions: Condition[] = [];
      for (const [param, op] of FILTERS) {
        const value = q[param];
        const path = q[`${param}Field`];
        if (value !== undefined && path !== undefined) conditions.push(leaf(param, op, path, value));
      }
      const sortPath = q.sort ?? workflowType.defaultSort;
      const sort: SortKey[] = [{ field: workflowType.fields.get(sortPath)!, direction: q.order }];
      if (sortPath !== '_id') sort.push({ field: workflowType.fields.get('_id')!, direction: q.order });
      return { where: and(conditions), sort, skip: q.skip, limit: q.limit };
    },
  };
}
