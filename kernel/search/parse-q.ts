/**
 * The `q` parameter: a JSON object whose keys are operator names (mapping
 * field to value), or `and` / `or` (arrays of such objects), or `not` (one
 * such object). Parsed with JSON.parse, never EJSON, so `{"$oid": ...}` or
 * `{"$regularExpression": ...}` mean nothing; every key is checked, so
 * `$where`, `__proto__` or `_bsontype` anywhere is refused.
 */
import type { Condition } from './conditions.ts';
import { and } from './conditions.ts';
import type { DocType } from './fields.ts';
import { isForbiddenKey } from './fields.ts';
import { buildLeaf, isOperator, LeafError } from './leaf.ts';
import type { LeafLimits, LeafValue } from './leaf.ts';
import { isPlainObject } from '../objects.ts';

export interface QLimits extends LeafLimits {
  readonly maxQDepth: number;
  readonly maxQNodes: number;
}

/** A problem at a JSON path inside `q`, e.g. `q.or[1].equals.status`. */
export class QError extends Error {
  constructor(readonly path: string, message: string) {
    super(message);
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function parseQ(text: string, type: DocType, limits: QLimits): Condition | null {
  let json: Json;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    throw new QError('q', 'is not valid JSON');
  }
  const state = { nodes: 0 };
  return node(json, 'q', 1, type, limits, state);
}

function node(value: Json, at: string, depth: number, type: DocType, limits: QLimits, state: { nodes: number }): Condition | null {
  if (depth > limits.maxQDepth) throw new QError(at, `nests deeper than ${limits.maxQDepth} levels`);
  if (!isPlainObject(value)) throw new QError(at, 'must be a JSON object of operators');
  const parts: Condition[] = [];
  for (const key of Object.keys(value)) {
    const here = `${at}.${key}`;
    if (isForbiddenKey(key)) throw new QError(here, `uses the forbidden key ${JSON.stringify(key)}`);
    const child = value[key]!;
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(child) || child.length === 0) throw new QError(here, 'must be a non-empty array of objects');
      const items = child.map((c, i) => node(c, `${here}[${i}]`, depth + 1, type, limits, state)).filter((c): c is Condition => c !== null);
      if (key === 'and') {
        const all = and(items);
        if (all) parts.push(all);
      } else if (items.length > 0) {
        parts.push(items.length === 1 ? items[0]! : { kind: 'or', items });
      }
    } else if (key === 'not') {
      const inner = node(child, here, depth + 1, type, limits, state);
      if (!inner) throw new QError(here, 'must hold at least one condition');
      parts.push({ kind: 'not', item: inner });
    } else if (isOperator(key)) {
      if (!isPlainObject(child)) throw new QError(here, 'must be an object mapping field names to values');
      for (const path of Object.keys(child)) {
        const leafAt = `${here}.${path}`;
        if (path.split('.').some(isForbiddenKey)) throw new QError(leafAt, `uses the forbidden key ${JSON.stringify(path)}`);
        state.nodes += 1;
        if (state.nodes > limits.maxQNodes) throw new QError('q', `has more than ${limits.maxQNodes} conditions`);
        try {
          parts.push(buildLeaf(type, key, path, leafValue(child[path]!, leafAt), limits));
        } catch (err) {
          if (err instanceof LeafError) throw new QError(leafAt, err.message);
          throw err;
        }
      }
    } else {
      throw new QError(here, `${JSON.stringify(key)} is not an operator (use and, or, not, or one of the search operators)`);
    }
  }
  return and(parts);
}

function leafValue(value: Json, at: string): LeafValue {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') return item;
      throw new QError(`${at}[${i}]`, 'list items must be strings, numbers or booleans');
    });
  }
  throw new QError(at, 'must be a string, number, boolean or list; objects are not values');
}
