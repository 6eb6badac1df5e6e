/**
 * Turns the query string of `GET /operations-manager/jobs|tasks` into a
 * validated SearchRequest. Every problem is collected, so one 400 names every
 * offending parameter. The same validated tree feeds the count and the page.
 */
import { ValidationError } from '../errors.ts';
import type { ErrorDetail } from '../errors.ts';
import { and } from './conditions.ts';
import type { Condition, SortKey } from './conditions.ts';
import type { DocType } from './fields.ts';
import { isProjectable } from './fields.ts';
import { sortIsIndexed } from '../store/collections.ts';
import { buildLeaf, isOperator, LeafError } from './leaf.ts';
import { parseQ, QError } from './parse-q.ts';
import type { QLimits } from './parse-q.ts';
import { keeps } from './projection.ts';
import type { Projection } from './projection.ts';
import { decodeComponent, QueryStringError, splitList, splitQueryString } from './query-string.ts';
import type { RawParam } from './query-string.ts';

export interface SearchLimits extends QLimits {
  readonly defaultLimit: number;
  readonly maxLimit: number;
  readonly maxQueryLength: number;
  /** Largest skip + limit when the sort field has no index (docs/search.md, "Sorting"). */
  readonly maxUnindexedSortWindow: number;
  /** Most MiB of documents, as stored, one page may carry (`search.maxPageMb`). */
  readonly maxPageMb: number;
}

/** The byte budget of a page a caller asks for: the store refuses a page past it (SearchQuery.maxBytes). */
export function pageBytes(limits: { readonly maxPageMb: number }): number {
  return limits.maxPageMb * 1024 * 1024;
}

export interface ReadOptions {
  readonly projection: Projection;
  readonly dereference: readonly string[];
}

export interface SearchRequest extends ReadOptions {
  readonly type: DocType;
  readonly where: Condition | null;
  /** Always ends with `_id`, so the order is total and pages never overlap. */
  readonly sort: readonly SortKey[];
  readonly skip: number;
  readonly limit: number;
  readonly maxBytes: number;
}

const CONDITION = /^([a-z-]+)\[([^\]]*)\]$/;
// `token` is not here: credentials are removed before any validator runs (http/mount.ts).
const SINGLE = new Set(['q', 'include', 'exclude', 'dereference', 'sort', 'order', 'skip', 'limit']);
const READ_ONLY = new Set(['include', 'exclude', 'dereference']);
const WHOLE_NUMBER = /^(0|[1-9][0-9]{0,15})$/;

/** Collects problems so that one answer lists all of them. */
class Problems {
  readonly list: ErrorDetail[] = [];
  add(parameter: string, message: string): void {
    this.list.push({ parameter, message });
  }
  throwIfAny(summary: string): void {
    if (this.list.length > 0) throw new ValidationError(`${summary}: ${this.list.map((d) => `${d.parameter} ${d.message}`).join('; ')}`, this.list);
  }
}

export function parseSearch(type: DocType, queryString: string, limits: SearchLimits): SearchRequest {
  const problems = new Problems();
  const params = readParams(queryString, limits, problems);
  problems.throwIfAny('Invalid search');

  const conditions: Condition[] = [];
  const single = new Map<string, string>();
  for (const p of params) {
    const m = CONDITION.exec(p.name);
    if (m && isOperator(m[1]!)) {
      const op = m[1];
      try {
        const value = op === 'in' || op === 'not-in' ? splitList(p.raw, p.name) : decodeComponent(p.raw, p.name);
        conditions.push(buildLeaf(type, op, m[2]!, value, limits));
      } catch (err) {
        if (err instanceof LeafError || err instanceof QueryStringError) problems.add(p.name, err.message);
        else throw err;
      }
    } else if (SINGLE.has(p.name)) {
      if (single.has(p.name)) problems.add(p.name, 'is given more than once');
      else single.set(p.name, decodeOr(p, problems));
    } else {
      problems.add(p.name, m ? `${m[1]} is not a search operator` : 'is not a search parameter');
    }
  }

  const q = single.get('q');
  if (q !== undefined) {
    try {
      const cond = parseQ(q, type, limits);
      if (cond) conditions.push(cond);
    } catch (err) {
      if (err instanceof QError) problems.add(err.path, err.message);
      else throw err;
    }
  }
  const where = and(conditions);
  checkTextPlacement(where, problems);

  const read = readOptions(type, single, problems);
  const skip = readWhole(single, 'skip', 0, Number.MAX_SAFE_INTEGER, problems);
  const limit = readWhole(single, 'limit', limits.defaultLimit, limits.maxLimit, problems);
  const sort = readSort(type, single, read.projection, problems);
  // Without an index the store reads every match and keeps skip + limit rows in its
  // top-N sorter; bounding that window bounds the memory and the work per match.
  const key = sort[0];
  if (key && !sortIsIndexed(type, key.field.path) && skip + limit > limits.maxUnindexedSortWindow) {
    problems.add('skip', `plus limit must not exceed ${limits.maxUnindexedSortWindow} when sorting on ${key.field.path}, which has no index (indexed: ${indexedSorts(type).join(', ')})`);
  }
  problems.throwIfAny('Invalid search');
  return { type, where, sort, skip, limit, maxBytes: pageBytes(limits), ...read };
}

/** Query options of a read by id: only the projection and dereference parameters. */
export function parseReadOptions(type: DocType, queryString: string, limits: SearchLimits): ReadOptions {
  const problems = new Problems();
  const single = new Map<string, string>();
  for (const p of readParams(queryString, limits, problems)) {
    if (!READ_ONLY.has(p.name)) problems.add(p.name, 'is not a parameter of this read (include, exclude and dereference are)');
    else if (single.has(p.name)) problems.add(p.name, 'is given more than once');
    else single.set(p.name, decodeOr(p, problems));
  }
  const read = readOptions(type, single, problems);
  problems.throwIfAny('Invalid read');
  return read;
}

function readParams(queryString: string, limits: SearchLimits, problems: Problems): RawParam[] {
  if (queryString.length > limits.maxQueryLength) {
    problems.add('query', `is longer than ${limits.maxQueryLength} characters`);
    return [];
  }
  try {
    return splitQueryString(queryString);
  } catch (err) {
    if (err instanceof QueryStringError) {
      problems.add(err.parameter, err.message);
      return [];
    }
    throw err;
  }
}

function decodeOr(p: RawParam, problems: Problems): string {
  try {
    return decodeComponent(p.raw, p.name);
  } catch (err) {
    if (err instanceof QueryStringError) problems.add(p.name, err.message);
    else throw err;
    return '';
  }
}

/** Text search may appear once, and only where every clause around it is ANDed. */
function checkTextPlacement(where: Condition | null, problems: Problems): void {
  let count = 0;
  const walk = (c: Condition, underOrNot: boolean): void => {
    if (c.kind === 'text') {
      count += 1;
      if (underOrNot) problems.add(`contains[${c.field.path}]`, 'text search cannot be used inside or / not');
    } else if (c.kind === 'and') c.items.forEach((i) => walk(i, underOrNot));
    else if (c.kind === 'or') c.items.forEach((i) => walk(i, true));
    else if (c.kind === 'not') walk(c.item, true);
  };
  if (where) walk(where, false);
  if (count > 1) problems.add('contains[description]', 'text search may be used only once per search');
}

function readList(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

function readOptions(type: DocType, single: Map<string, string>, problems: Problems): ReadOptions {
  const include = single.has('include') ? readList(single.get('include')!) : null;
  const exclude = single.has('exclude') ? readList(single.get('exclude')!) : null;
  for (const [name, list] of [['include', include], ['exclude', exclude]] as const) {
    if (list === null) continue;
    if (list.length === 0) problems.add(name, 'must name at least one property');
    for (const path of list) if (!isProjectable(type, path)) problems.add(name, `${path} is not a property of ${type.name}`);
  }
  let projection: Projection = { kind: 'all', dropId: false };
  if (include && exclude) {
    if (exclude.length !== 1 || exclude[0] !== '_id') problems.add('exclude', 'may be combined with include only as exclude=_id');
    projection = { kind: 'include', paths: include, dropId: true };
  } else if (include) {
    projection = { kind: 'include', paths: include, dropId: false };
  } else if (exclude) {
    projection = exclude.length === 1 && exclude[0] === '_id' ? { kind: 'all', dropId: true } : { kind: 'exclude', paths: exclude };
  }
  const dereference = single.has('dereference') ? readList(single.get('dereference')!) : [];
  for (const d of dereference) {
    if (!type.dereferences.has(d)) problems.add('dereference', `${d} cannot be dereferenced on ${type.name} (allowed: ${[...type.dereferences].join(', ')})`);
  }
  return { projection, dereference: [...new Set(dereference)] };
}

function readSort(type: DocType, single: Map<string, string>, projection: Projection, problems: Problems): SortKey[] {
  const sortName = single.get('sort');
  const orderText = single.get('order');
  const id = type.fields.get('_id')!;
  if ((sortName === undefined) !== (orderText === undefined)) {
    problems.add(sortName === undefined ? 'order' : 'sort', `must be given together with ${sortName === undefined ? 'sort' : 'order'}`);
    return [];
  }
  let direction: 1 | -1 = 1;
  if (orderText !== undefined) {
    if (orderText !== '1' && orderText !== '-1') problems.add('order', 'must be 1 or -1');
    direction = orderText === '-1' ? -1 : 1;
  }
  const path = sortName ?? type.defaultSort;
  const field = type.fields.get(path);
  if (!field || !field.sortable) {
    const sortable = [...type.fields.values()].filter((f) => f.sortable).map((f) => f.path);
    problems.add('sort', `${path} is not a sortable field of ${type.name} (sortable: ${sortable.join(', ')})`);
    return [];
  }
  if (sortName !== undefined && !keeps(projection, path)) problems.add('sort', `${path} is removed by the projection`);
  return field === id ? [{ field, direction }] : [{ field, direction }, { field: id, direction }];
}

function indexedSorts(type: DocType): string[] {
  return [...type.fields.values()].filter((f) => f.sortable && sortIsIndexed(type, f.path)).map((f) => f.path);
}

function readWhole(single: Map<string, string>, name: 'skip' | 'limit', fallback: number, max: number, problems: Problems): number {
  const text = single.get(name);
  if (text === undefined) return fallback;
  if (!WHOLE_NUMBER.test(text)) {
    problems.add(name, 'must be a non-negative whole number');
    return fallback;
  }
  const n = Number(text);
  if (n > max) problems.add(name, `must not exceed ${max}`);
  return n;
}
