/**
 * Builds one condition from an operator, a field name and a value, shared by
 * the `operator[field]=value` parameters and the `q` object.
 */
import type { Condition, CompareOp } from './conditions.ts';
import { parseTextQuery } from './conditions.ts';
import type { DocType } from './fields.ts';
import { readValue, ValueError } from './values.ts';
import type { Scalar } from './values.ts';

export const OPERATORS = ['equals', 'starts-with', 'ends-with', 'contains', 'in', 'not-in', 'gt', 'gte', 'lt', 'lte'] as const;
export type Operator = (typeof OPERATORS)[number];

export function isOperator(name: string): name is Operator {
  return (OPERATORS as readonly string[]).includes(name);
}

export interface LeafLimits {
  readonly maxInItems: number;
  readonly maxValueLength: number;
}

/** A value as it arrives: one text, a list (in / not-in), or a JSON scalar from `q`. */
export type LeafValue = string | number | boolean | readonly (string | number | boolean)[];

/** Thrown with a message for the offending parameter; the caller knows its name. */
export class LeafError extends Error {}

const COMPARE: Record<string, CompareOp> = { equals: 'eq', gt: 'gt', gte: 'gte', lt: 'lt', lte: 'lte' };

export function buildLeaf(type: DocType, op: Operator, path: string, value: LeafValue, limits: LeafLimits): Condition {
  const field = type.fields.get(path);
  if (!field) throw new LeafError(`${path} is not a searchable field of ${type.name}`);
  const read = (v: string | number | boolean): Scalar => {
    if (typeof v === 'string' && v.length > limits.maxValueLength) {
      throw new LeafError(`value is longer than ${limits.maxValueLength} characters`);
    }
    try {
      return readValue(field, v);
    } catch (err) {
      if (err instanceof ValueError) throw new LeafError(`value for ${path} ${err.message}`);
      throw err;
    }
  };

  if (op === 'in' || op === 'not-in') {
    const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
    if (items.length === 0) throw new LeafError(`${op} needs at least one option`);
    if (items.length > limits.maxInItems) throw new LeafError(`${op} accepts at most ${limits.maxInItems} options`);
    const values = [...new Set(items.map((v) => read(v as string | number | boolean)))];
    const cond: Condition = { kind: 'in', field, values };
    return op === 'in' ? cond : { kind: 'not', item: cond };
  }
  if (Array.isArray(value)) throw new LeafError(`${op} takes one value, not a list`);
  const single = value as string | number | boolean;

  if (op === 'starts-with' || op === 'ends-with' || op === 'contains') {
    if (field.type !== 'string') throw new LeafError(`${op} applies to text fields; ${path} is a ${field.type}`);
    const text = read(single) as string;
    if (op === 'contains' && field.textSearch) {
      const query = parseTextQuery(text);
      if (query.terms.length === 0 && query.phrases.length === 0) {
        throw new LeafError(`text search on ${path} needs at least one word that is not excluded`);
      }
      return { kind: 'text', field, query };
    }
    return { kind: 'match', mode: op === 'starts-with' ? 'prefix' : op === 'ends-with' ? 'suffix' : 'substring', field, text };
  }

  const compare = COMPARE[op]!;
  if (compare !== 'eq' && field.type === 'boolean') throw new LeafError(`${op} does not apply to the true/false field ${path}`);
  return { kind: 'compare', op: compare, field, value: read(single) };
}
