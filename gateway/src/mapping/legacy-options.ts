/**
 * The list options of legacy searches, read with MongoDB's rules
 * (docs/gateway.md, "Legacy searches"): `sort` as `{field: 1|-1}` (several
 * keys, an array of pairs, a bare field name, or workflow-engine's
 * `{field, direction}`), `skip`, `limit` (0 or none: no limit; negative:
 * its absolute value) and `fields` as an inclusive or exclusive projection.
 * A request MongoDB itself would refuse is refused with MongoDB's reason.
 * A `sort` or `fields` path through `__proto__`, `constructor` or
 * `prototype` is refused with 400 naming the path (docs/security.md): a projection
 * built from such a path once wrote into `Object.prototype` (issue 26).
 */
import { LegacyFailure } from './run.ts';
import { BadRequestError, isPlainObject, prototypeSegment, setOwn } from '../../../kernel/index.ts';

type Doc = Record<string, unknown>;

export type Direction = 1 | -1;
export type SortKeys = ReadonlyArray<readonly [field: string, direction: Direction]>;

export type MongoProjection =
  | { readonly kind: 'include'; readonly paths: readonly string[]; readonly dropId: boolean }
  | { readonly kind: 'exclude'; readonly paths: readonly string[] };

function direction(field: string, value: unknown): Direction {
  if (value === 1 || value === '1') return 1;
  if (value === -1 || value === '-1') return -1;
  const word = typeof value === 'string' ? value.toLowerCase() : '';
  if (word === 'asc' || word === 'ascending') return 1;
  if (word === 'desc' || word === 'descending') return -1;
  throw new LegacyFailure(`Invalid sort direction for ${field}: ${JSON.stringify(value)} (MongoDB takes 1, -1, asc or desc)`);
}

/**
 * Refuses a caller's path that would lead to a prototype instead of to data:
 * a legacy string like every other refusal here, but 400 BAD_REQUEST, not the
 * legacy 500 (docs/errors.md): the platform never answered such a path, so no
 * client depends on its status, and the caller is told the mistake is theirs.
 */
export function refusePrototypePath(option: 'fields' | 'sort', path: string): string {
  const segment = prototypeSegment(path);
  if (segment !== null) throw new BadRequestError(`${option}: ${JSON.stringify(path)} is not a field path this search can take (${JSON.stringify(segment)} names a prototype, not a field)`);
  return path;
}

function sortKey(field: string, value: unknown): readonly [string, Direction] {
  return [refusePrototypePath('sort', field), direction(field, value)];
}

/** The sort keys of a legacy `sort` option, in order; none when absent. */
export function readSort(sort: unknown): SortKeys {
  if (sort === undefined || sort === null) return [];
  if (typeof sort === 'string' && sort !== '') return [sortKey(sort, 1)];
  if (Array.isArray(sort)) {
    return sort.map((pair: unknown) => {
      if (typeof pair === 'string' && pair !== '') return sortKey(pair, 1);
      if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[0] !== '') return sortKey(pair[0], pair[1] ?? 1);
      throw new LegacyFailure(`Invalid sort ${JSON.stringify(sort)}: each item must be a field name or [field, direction]`);
    });
  }
  if (!isPlainObject(sort)) throw new LegacyFailure(`Invalid sort ${JSON.stringify(sort)}: it must be an object of field and direction`);
  // workflow-engine's own form; as a MongoDB sort it would be invalid (a direction of "name").
  const keys = Object.keys(sort);
  const own = (k: string): unknown => (Object.hasOwn(sort, k) ? sort[k] : undefined);
  const field = own('field');
  if (typeof field === 'string' && keys.every((k) => k === 'field' || k === 'direction')) return [sortKey(field, own('direction') ?? 1)];
  return keys.map((k) => sortKey(k, sort[k]));
}

/** The one field the new search can sort on for these keys (it always ends with `_id` in the same direction), or a failure naming why not. */
export function singleSort(keys: SortKeys): { readonly sort: string; readonly order: string } | null {
  const cut = keys.findIndex(([f]) => f === '_id');
  // Keys after _id never decide anything: _id is unique.
  const used = cut === -1 ? keys : keys.slice(0, cut + 1);
  if (used.length === 0) return null;
  const [first, second] = used;
  if (used.length === 1 || (used.length === 2 && second![0] === '_id' && second![1] === first![1])) return { sort: first![0], order: String(first![1]) };
  throw new LegacyFailure(`The sort ${used.map(([f, d]) => `${f}: ${d}`).join(', ')} cannot be expressed in the new search: it sorts on one field, then on _id in the same direction`);
}

function whole(name: string, value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw new LegacyFailure(`${name} must be a whole number, not ${JSON.stringify(value)}`);
  return n;
}

/** `skip`: 0 when absent; MongoDB refuses a negative one. */
export function readSkip(value: unknown): number {
  const n = whole('skip', value) ?? 0;
  if (n < 0) throw new LegacyFailure(`skip must not be negative, got ${n}`);
  return n;
}

/** `limit`: null (every document) when absent or 0, as in MongoDB; a negative limit is its absolute value. */
export function readLimit(value: unknown): number | null {
  const n = whole('limit', value);
  return n === null || n === 0 ? null : Math.abs(n);
}

/** A MongoDB projection document as include or exclude paths; null when it keeps everything. */
export function readProjection(fields: unknown): MongoProjection | null {
  if (fields === undefined || fields === null) return null;
  if (!isPlainObject(fields)) throw new LegacyFailure(`fields must be a projection object such as {"name": 1}, not ${JSON.stringify(fields)}`);
  const on: string[] = [];
  const off: string[] = [];
  let dropId = false;
  let includeId = false;
  for (const [path, value] of Object.entries(fields)) {
    if (path === '' || path.startsWith('$') || path.split('.').some((p) => p === '' || p.startsWith('$'))) throw new LegacyFailure(`fields: ${JSON.stringify(path)} is not a field path this projection can take`);
    refusePrototypePath('fields', path);
    let included: boolean;
    if (typeof value === 'boolean') included = value;
    else if (typeof value === 'number' && Number.isFinite(value)) included = value !== 0;
    else throw new LegacyFailure(`fields.${path}: only 1/true (include) and 0/false (exclude) projections can be expressed, not ${JSON.stringify(value)}`);
    if (path === '_id') {
      if (included) includeId = true;
      else dropId = true;
      continue;
    }
    if (included && off.length > 0) throw new LegacyFailure(`Cannot do inclusion on field ${path} in exclusion projection`);
    if (!included && on.length > 0) throw new LegacyFailure(`Cannot do exclusion on field ${path} in inclusion projection`);
    (included ? on : off).push(path);
  }
  const paths = on.length > 0 ? on : off;
  for (const a of paths) for (const b of paths) if (a !== b && b.startsWith(`${a}.`)) throw new LegacyFailure(`Path collision at ${b}`);
  if (on.length > 0 || (includeId && off.length === 0 && !dropId)) return { kind: 'include', paths: on, dropId };
  if (off.length > 0 || dropId) return { kind: 'exclude', paths: dropId ? ['_id', ...off] : off };
  return null;
}

/** A one-key document; the key is data, so it is defined rather than assigned. */
function single(key: string, value: unknown): Doc {
  const out: Doc = {};
  setOwn(out, key, value);
  return out;
}

function includePath(from: Doc, segments: readonly string[]): Doc {
  const [head, ...rest] = segments;
  if (!Object.hasOwn(from, head!)) return {};
  const value = from[head!];
  if (rest.length === 0) return single(head!, value);
  if (isPlainObject(value)) return single(head!, includePath(value, rest));
  if (Array.isArray(value)) return single(head!, inArray(value, rest));
  return {};
}

/** Inside arrays MongoDB keeps only the documents, each projected. */
function inArray(items: readonly unknown[], segments: readonly string[]): unknown[] {
  return items.filter((e) => isPlainObject(e) || Array.isArray(e)).map((e) => (isPlainObject(e) ? includePath(e, segments) : inArray(e as unknown[], segments)));
}

/** Merges projected parts; only own keys of `into` are followed, never an inherited `__proto__`. */
function merge(into: Doc, part: Doc): void {
  for (const [k, v] of Object.entries(part)) {
    const existing = Object.hasOwn(into, k) ? into[k] : undefined;
    if (isPlainObject(existing) && isPlainObject(v)) merge(existing, v);
    else if (Array.isArray(existing) && Array.isArray(v)) existing.forEach((e: unknown, i) => isPlainObject(e) && isPlainObject(v[i]) && merge(e, v[i]));
    else setOwn(into, k, v);
  }
}

function excludePath(doc: unknown, segments: readonly string[]): void {
  if (Array.isArray(doc)) {
    for (const e of doc) excludePath(e, segments);
    return;
  }
  if (!isPlainObject(doc)) return;
  const [head, ...rest] = segments;
  if (rest.length === 0) delete doc[head!];
  else if (Object.hasOwn(doc, head!)) excludePath(doc[head!], rest);
}

/** Applies a MongoDB projection to one document, as MongoDB does (dotted paths reach into arrays of documents). */
export function project(doc: unknown, projection: MongoProjection | null): unknown {
  if (projection === null || !isPlainObject(doc)) return doc;
  if (projection.kind === 'exclude') {
    const out = structuredClone(doc);
    for (const path of projection.paths) excludePath(out, path.split('.'));
    return out;
  }
  const out: Doc = {};
  if (!projection.dropId && Object.hasOwn(doc, '_id')) out['_id'] = doc['_id'];
  for (const path of projection.paths) merge(out, includePath(doc, path.split('.')));
  return out;
}
