/**
 * Random legacy search options (MongoDB filters, sorts, skips, limits,
 * projections) for the differential suites, each carrying what the gateway
 * must refuse in it: a part the new interface cannot express exactly is
 * generated on purpose now and then, with a word the legacy error must
 * contain (docs/gateway.md, "Legacy searches"). The rules here are written
 * from MongoDB's documentation and the search's field table
 * (docs/search.md), not from the gateway's code.
 */
import fc from 'fast-check';
import { APPS, GROUPS, ISO_TIMES, JOB_STATUSES, NAMES, PROGRESS, TASK_KEYS, TASK_STATUSES, TIMES, USERS } from './documents.ts';
import type { Doc } from './documents.ts';

/** A part of a request and the words a refusal of it must name (none: it must be answered exactly). */
export interface Part<T> {
  readonly value: T;
  readonly refusals: readonly string[];
}

type Kind = 'string' | 'text' | 'number' | 'epoch' | 'iso' | 'oid' | 'uuid' | 'bool';

interface Field {
  readonly path: string;
  readonly kind: Kind;
  readonly pool: readonly unknown[];
}

export interface TypeModel {
  readonly fields: readonly Field[];
  /** Fields the new search sorts on (asked of the core: which fields sort is the interface's choice, not the gateway's). */
  readonly sortable: readonly string[];
  readonly unsortable: readonly string[];
  readonly projections: readonly string[];
}

/** Sort candidates of each type: some sort today, some do not, some may later (docs/search.md). */
export const SORT_CANDIDATES = {
  jobs: ['_id', 'name', 'status', 'metrics.start_time', 'last_updated', 'metrics.progress', 'created'],
  tasks: ['_id', 'name', 'status', 'metrics.start_time', 'last_updated', 'metrics.run_time', 'app'],
} as const;

export function jobModel(ids: readonly string[], sortable: readonly string[] = SORT_CANDIDATES.jobs): TypeModel {
  return {
    fields: [
      { path: '_id', kind: 'oid', pool: ids },
      { path: 'name', kind: 'string', pool: NAMES },
      { path: 'description', kind: 'text', pool: ['upgrade the port', 'nothing'] },
      { path: 'status', kind: 'string', pool: JOB_STATUSES },
      { path: 'type', kind: 'string', pool: ['automation', 'resource:action'] },
      { path: 'metrics.start_time', kind: 'epoch', pool: TIMES },
      { path: 'metrics.progress', kind: 'number', pool: PROGRESS },
      { path: 'metrics.user', kind: 'string', pool: USERS },
      { path: 'created', kind: 'iso', pool: ISO_TIMES },
      { path: 'last_updated', kind: 'iso', pool: ISO_TIMES },
      { path: 'created_by', kind: 'string', pool: USERS },
      { path: 'groups', kind: 'string', pool: GROUPS },
      { path: 'watchers', kind: 'string', pool: USERS },
    ],
    sortable: SORT_CANDIDATES.jobs.filter((f) => sortable.includes(f)),
    unsortable: SORT_CANDIDATES.jobs.filter((f) => !sortable.includes(f)),
    projections: ['name', 'status', 'metrics', 'metrics.start_time', 'metrics.user', 'groups', 'variables.items.x', 'variables.port', 'description', 'unknownProp'],
  };
}

export function taskModel(ids: readonly string[], jobIds: readonly string[], sortable: readonly string[] = SORT_CANDIDATES.tasks): TypeModel {
  return {
    fields: [
      { path: '_id', kind: 'uuid', pool: ids },
      { path: 'name', kind: 'string', pool: NAMES },
      { path: 'summary', kind: 'string', pool: ['Make data', 'Wait'] },
      { path: 'status', kind: 'string', pool: TASK_STATUSES },
      { path: 'app', kind: 'string', pool: APPS },
      { path: 'type', kind: 'string', pool: ['automatic', 'manual'] },
      { path: 'job._id', kind: 'oid', pool: jobIds },
      { path: 'job.task', kind: 'string', pool: TASK_KEYS },
      { path: 'job.name', kind: 'string', pool: NAMES },
      { path: 'groups', kind: 'string', pool: GROUPS },
      { path: 'last_updated', kind: 'iso', pool: ISO_TIMES },
      { path: 'metrics.start_time', kind: 'epoch', pool: TIMES },
      { path: 'metrics.run_time', kind: 'number', pool: [0, 5, 12.5] },
      { path: 'metrics.owner', kind: 'string', pool: USERS },
      { path: 'deprecated', kind: 'bool', pool: [true, false] },
      { path: 'scheduled', kind: 'bool', pool: [true, false] },
    ],
    sortable: SORT_CANDIDATES.tasks.filter((f) => sortable.includes(f)),
    unsortable: SORT_CANDIDATES.tasks.filter((f) => !sortable.includes(f)),
    projections: ['name', 'status', 'job', 'job.task', 'metrics.owner', 'variables.incoming.n', 'app', 'deprecated', 'groups.x'],
  };
}

const ok = <T>(value: T): Part<T> => ({ value, refusals: [] });
const refused = <T>(value: T, ...refusals: string[]): Part<T> => ({ value, refusals });

function escape(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** A literal regular expression made from a pool value: a prefix, suffix, substring or the whole. */
function literalRegex(f: Field): fc.Arbitrary<Part<unknown>> {
  return fc.tuple(fc.constantFrom(...(f.pool as string[])), fc.nat(), fc.nat(), fc.constantFrom('start', 'end', 'both', 'none')).map(([s, a, b, anchor]) => {
    const [i, j] = [a % (s.length + 1), b % (s.length + 1)].sort((x, y) => x - y);
    const piece = escape(s.slice(anchor === 'start' || anchor === 'both' ? 0 : i!, anchor === 'end' || anchor === 'both' ? s.length : j!));
    const pattern = `${anchor === 'start' || anchor === 'both' ? '^' : ''}${piece}${anchor === 'end' || anchor === 'both' ? '$' : ''}`;
    // Jobs' description is searched by words in the new search: only anchored matches are literal there.
    return f.kind === 'text' && anchor === 'none' ? refused({ $regex: pattern }, 'description') : ok({ $regex: pattern });
  });
}

function leafValue(f: Field): fc.Arbitrary<Part<unknown>> {
  const v = fc.constantFrom(...f.pool);
  const list = fc.uniqueArray(v, { minLength: 1, maxLength: 3 });
  const options: Array<fc.Arbitrary<Part<unknown>>> = [
    v.map(ok),
    v.map((x) => ok({ $eq: x })),
    v.map((x) => ok({ $ne: x })),
    list.map((xs) => ok({ $in: xs })),
    list.map((xs) => ok({ $nin: xs })),
    fc.constant(refused({ $exists: true }, '$exists')),
  ];
  if (f.kind !== 'bool') {
    options.push(fc.tuple(fc.constantFrom('$gt', '$gte', '$lt', '$lte'), v).map(([op, x]) => ok({ [op]: x })));
    options.push(fc.tuple(v, v).map(([x, y]) => ok({ $gte: x, $lte: y })));
  }
  if (f.kind === 'string' || f.kind === 'text') {
    options.push(literalRegex(f), literalRegex(f), literalRegex(f).map((p) => ({ value: { $not: p.value }, refusals: p.refusals })));
    options.push(fc.constant(refused({ $regex: 'a.*b' }, 'literal')), fc.constant(refused({ $regex: '\\d' }, 'literal')), fc.constant(refused({ $regex: 'alpha', $options: 'i' }, 'case-sensitive')));
    // MongoDB compares by type: the number 5 never equals a text; the new search would read it as "5".
    options.push(fc.constant(refused(5, f.path)));
  }
  if (f.kind === 'epoch') options.push(fc.constant(refused({ $gte: '2024-01-01' }, f.path)));
  return fc.oneof(...options);
}

function leaf(model: TypeModel): fc.Arbitrary<Part<[string, unknown]>> {
  return fc.constantFrom(...model.fields).chain((f) => leafValue(f).map((p) => ({ value: [f.path, p.value] as [string, unknown], refusals: p.refusals })));
}

/** An object of conditions; keys are unique, so no generated condition is silently overwritten. */
function conditions(model: TypeModel, depth: number): fc.Arbitrary<Part<Doc>> {
  const entry = depth < 0 ? leaf(model) : fc.oneof({ weight: 4, arbitrary: leaf(model) }, { weight: 1, arbitrary: logical(model, depth) });
  return fc.uniqueArray(entry, { minLength: depth < 0 ? 1 : 0, maxLength: 3, selector: (e) => e.value[0] }).map((entries) => ({
    value: Object.fromEntries(entries.map((e) => e.value)),
    refusals: entries.flatMap((e) => e.refusals),
  }));
}

function logical(model: TypeModel, depth: number): fc.Arbitrary<Part<[string, unknown]>> {
  return fc
    .tuple(fc.constantFrom('$or', '$and', '$nor'), fc.array(conditions(model, depth - 1), { minLength: 1, maxLength: 3 }))
    .map(([op, items]) => {
      // `{}` selects every document, so `$nor` with it selects none: a search the new interface has no words for.
      const none = op === '$nor' && items.some((i) => Object.keys(i.value).length === 0) ? ['$nor'] : [];
      return { value: [op, items.map((i) => i.value)] as [string, unknown], refusals: [...items.flatMap((i) => i.refusals), ...none] };
    });
}

export function query(model: TypeModel): fc.Arbitrary<Part<Doc>> {
  return conditions(model, 1);
}

export type SortKeys = ReadonlyArray<readonly [string, 1 | -1]>;

/** Sort keys, with the refusal the new search's one-field sort implies (docs/search.md, Sorting). */
export function sort(model: TypeModel, anyField = false): fc.Arbitrary<Part<SortKeys>> {
  const fieldArb = model.unsortable.length === 0 ? fc.constantFrom(...model.sortable) : fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...model.sortable) }, { weight: 1, arbitrary: fc.constantFrom(...model.unsortable) });
  const key = fc.tuple(fieldArb, fc.constantFrom(1 as const, -1 as const));
  return fc.uniqueArray(key, { maxLength: 3, selector: (k) => k[0] }).map((keys) => {
    if (anyField) return ok(keys);
    const cut = keys.findIndex(([f]) => f === '_id');
    const used = cut === -1 ? keys : keys.slice(0, cut + 1);
    const tieBreak = used.length === 2 && used[1]![0] === '_id' && used[1]![1] === used[0]![1];
    if (used.length > 1 && !tieBreak) return refused(keys, 'sort');
    const first = used[0]?.[0];
    return first !== undefined && !model.sortable.includes(first) ? refused(keys, first) : ok(keys);
  });
}

export function sortObject(keys: SortKeys): Doc {
  return Object.fromEntries(keys);
}

export const skip = fc.constantFrom(undefined, 0, 1, 3, 10, 45);
export const limit = (page: number): fc.Arbitrary<number | undefined> => fc.constantFrom(undefined, 0, 1, 2, page, page + 1, 20, 1500, -3);

export function projection(model: TypeModel): fc.Arbitrary<Part<Doc | undefined>> {
  const paths = fc.uniqueArray(fc.constantFrom(...model.projections), { minLength: 1, maxLength: 3 }).filter((ps) => !ps.some((a) => ps.some((b) => b.startsWith(`${a}.`))));
  const dropId = fc.boolean();
  return fc.oneof(
    fc.constant(ok(undefined)),
    fc.tuple(paths, dropId).map(([ps, d]) => ok({ ...Object.fromEntries(ps.map((p) => [p, 1])), ...(d ? { _id: 0 } : {}) })),
    fc.tuple(paths, dropId).map(([ps, d]) => ok({ ...Object.fromEntries(ps.map((p) => [p, 0])), ...(d ? { _id: 0 } : {}) })),
    fc.constant(ok({ _id: 0 })),
    fc.constant(ok({ _id: 1 })),
    fc.constant(refused({ name: 1, status: 0 }, 'Cannot do')),
  );
}
