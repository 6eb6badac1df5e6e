/**
 * Field registry: for each searchable document type, the fields a search may
 * name, their value type, whether they hold arrays, and whether they sort.
 * Everything the search language does with a field is decided here, so the
 * parser, both store compilers and the projection rules agree by construction.
 *
 * The mechanism is here with the jobs and tasks registries: those two are the
 * operations manager's search vocabulary, which both services speak (the core
 * parses it; the gateway writes it when it rewrites a legacy query), so they
 * belong to neither service alone. Every other registry is declared by the
 * service that keeps the collection (core/src/store/doc-types.ts, the
 * gateway's audit in gateway/src/audit/collection.ts).
 */
import { index } from '../store/collections.ts';
import type { IndexDescription } from '../store/types.ts';

export type ScalarType = 'string' | 'number' | 'boolean' | 'date' | 'objectId' | 'uuid';

/**
 * How a date field is stored. The real platform keeps `metrics.*_time` as
 * epoch milliseconds and `created`/`last_updated` as ISO-8601 strings; we keep
 * both forms so exported documents load unchanged. ISO strings are always
 * written as `Date#toISOString()` (UTC, milliseconds), so they order correctly
 * as text in both stores.
 */
export type DateEncoding = 'epochMs' | 'isoString';

export interface FieldDef {
  /** Dotted path inside the document, e.g. `metrics.start_time`. */
  readonly path: string;
  readonly type: ScalarType;
  /** The field holds an array of `type`; a condition matches when any element does. */
  readonly array: boolean;
  /**
   * For a field inside an array of objects (`memberOf.groupId`): the path of
   * the array (`memberOf`); `path` minus it is the path inside each element.
   */
  readonly arrayOfObjects: string | null;
  readonly dateEncoding: DateEncoding | null;
  /**
   * May be named by `sort`. Jobs and tasks sort on every scalar field of their
   * type (the interface's rule; for jobs only `metrics.start_time` among
   * `metrics.*`); a sort on a field without an index is bounded by
   * `search.maxUnindexedSortWindow` (docs/search.md). Array fields never sort:
   * they have no single value to order by.
   */
  readonly sortable: boolean;
  /** `contains` on this field is text search (jobs' description). */
  readonly textSearch: boolean;
}


export interface DocType {
  readonly name: string;
  /** Collection in the store. */
  readonly collection: string;
  readonly fields: ReadonlyMap<string, FieldDef>;
  /** Top-level properties a projection may name besides the registered fields. */
  readonly properties: ReadonlySet<string>;
  readonly dereferences: ReadonlySet<string>;
  /** Stored properties returned only when dereferenced (the job's `output`). */
  readonly dereferenceOnly: ReadonlySet<string>;
  /** Stored properties no answer ever shows (the engine's bookkeeping). */
  readonly internal: ReadonlySet<string>;
  readonly defaultSort: string;
  /**
   * The indexes of its collection. A sort on a field with a `field, _id` index
   * walks it; any other sort is bounded (kernel/search/parse-search.ts).
   */
  readonly indexes: readonly IndexDescription[];
}

interface FieldOptions {
  array?: boolean;
  arrayOfObjects?: string;
  sortable?: boolean;
  textSearch?: boolean;
  dateEncoding?: DateEncoding;
}

export function field(path: string, type: ScalarType, options: FieldOptions = {}): FieldDef {
  if (type === 'date' && !options.dateEncoding) throw new Error(`date field ${path} needs a dateEncoding`);
  return Object.freeze({
    path,
    type,
    array: (options.array ?? false) || options.arrayOfObjects !== undefined,
    arrayOfObjects: options.arrayOfObjects ?? null,
    dateEncoding: options.dateEncoding ?? null,
    sortable: options.sortable ?? false,
    textSearch: options.textSearch ?? false,
  });
}

export function registry(defs: readonly FieldDef[]): ReadonlyMap<string, FieldDef> {
  return new Map(defs.map((d) => [d.path, d]));
}

export const epoch = { dateEncoding: 'epochMs' } as const;
export const iso = { dateEncoding: 'isoString' } as const;

/**
 * What a document type says of itself; the rest defaults: its collection bears its name, lists sort by
 * `name`, and nothing is dereferenced or hidden. Lists of names become the sets and the field map the
 * search machinery reads.
 */
export interface DocTypeSpec {
  readonly name: string;
  readonly collection?: string;
  readonly defaultSort?: string;
  readonly indexes: readonly IndexDescription[];
  readonly fields: readonly FieldDef[];
  readonly properties: readonly string[];
  readonly dereferences?: readonly string[];
  readonly dereferenceOnly?: readonly string[];
  readonly internal?: readonly string[];
}

export function docType(spec: DocTypeSpec): DocType {
  return Object.freeze({
    name: spec.name,
    collection: spec.collection ?? spec.name,
    defaultSort: spec.defaultSort ?? 'name',
    indexes: spec.indexes,
    fields: registry(spec.fields),
    properties: new Set(spec.properties),
    dereferences: new Set(spec.dereferences),
    dereferenceOnly: new Set(spec.dereferenceOnly),
    internal: new Set(spec.internal),
  });
}

/** `_id` and `name`, both sortable: the pair every named collection lists by. */
export function identity(idType: 'objectId' | 'uuid'): FieldDef[] {
  return [field('_id', idType, { sortable: true }), field('name', 'string', { sortable: true })];
}

export const jobs: DocType = docType({
  name: 'jobs',
  indexes: [
    index([['name', 1], ['_id', 1]]),
    index([['status', 1], ['name', 1], ['_id', 1]]),
    index([['metrics.start_time', -1], ['_id', -1]]),
    index([['status', 1], ['metrics.start_time', -1], ['_id', -1]]),
    index([['last_updated', -1], ['_id', -1]]),
    // The fields people sort jobs on besides the above; the rest sort within a bounded window.
    index([['status', 1], ['_id', 1]]),
    index([['created', -1], ['_id', -1]]),
    index([['description', 1], ['_id', 1]]),
    index([['type', 1], ['_id', 1]]),
    index([['description', 'text']]),
    // The engine's marker of jobs with claimed work, so a restart finds them without a scan.
    index([['_inflight', 1]]),
  ],
  fields: [
    ...identity('objectId'),
    field('description', 'string', { textSearch: true, sortable: true }),
    field('type', 'string', { sortable: true }),
    field('status', 'string', { sortable: true }),
    field('metrics.start_time', 'date', { ...epoch, sortable: true }),
    field('metrics.end_time', 'date', epoch),
    field('metrics.progress', 'number'),
    field('metrics.user', 'string'),
    field('created', 'date', { ...iso, sortable: true }),
    field('created_by', 'string', { sortable: true }),
    field('last_updated', 'date', { ...iso, sortable: true }),
    field('last_updated_by', 'string', { sortable: true }),
    field('groups', 'string', { array: true }),
    field('watchers', 'string', { array: true }),
    field('ancestors', 'objectId', { array: true }),
  ],
  properties: [
    '_id', 'name', 'description', 'type', 'tasks', 'transitions', 'status', 'variables', 'watchers',
    'groups', 'ancestors', 'metrics', 'created', 'created_by', 'last_updated', 'last_updated_by',
    'error', 'output', 'decorators', 'workflow',
  ],
  dereferences: ['groups', 'tasks', 'output', 'accounts.metrics.user'],
  dereferenceOnly: ['output'],
  internal: ['_rev', '_runs', '_waiting', '_outputs', '_outputKeys', '_inflight', '_taskRuns', '_treeJobs', '_principal'],
});

export const tasks: DocType = docType({
  name: 'tasks',
  indexes: [
    index([['job._id', 1]]),
    index([['name', 1], ['_id', 1]]),
    index([['status', 1], ['name', 1], ['_id', 1]]),
    index([['metrics.start_time', -1], ['_id', -1]]),
    index([['last_updated', -1], ['_id', -1]]),
    index([['status', 1], ['_id', 1]]),
    // No `type` or `description` index: the platform's task search sorts on `name` alone (docs/search.md, "Which
    // task fields are indexed"), and every index costs every task row the engine writes. Those two cost a ten-task
    // job about 60 us of its commit and 5.5 of its 62 WAL pages; their sorts run in the bounded window instead.
  ],
  fields: [
    ...identity('uuid'),
    field('summary', 'string', { sortable: true }),
    field('description', 'string', { sortable: true }),
    field('location', 'string', { sortable: true }),
    field('app', 'string', { sortable: true }),
    field('type', 'string', { sortable: true }),
    field('status', 'string', { sortable: true }),
    field('view', 'string', { sortable: true }),
    field('job._id', 'objectId', { sortable: true }),
    field('job.task', 'string', { sortable: true }),
    field('job.name', 'string', { sortable: true }),
    field('job.description', 'string', { sortable: true }),
    field('job.ancestors', 'objectId', { array: true }),
    field('groups', 'string', { array: true }),
    field('last_updated', 'date', { ...iso, sortable: true }),
    field('metrics.start_time', 'date', { ...epoch, sortable: true }),
    field('metrics.end_time', 'date', { ...epoch, sortable: true }),
    field('metrics.claim_time', 'date', { ...epoch, sortable: true }),
    field('metrics.run_time', 'number', { sortable: true }),
    field('metrics.user', 'string', { sortable: true }),
    field('metrics.owner', 'string', { sortable: true }),
    field('metrics.finish_state', 'string', { sortable: true }),
    field('deprecated', 'boolean', { sortable: true }),
    field('scheduled', 'boolean', { sortable: true }),
  ],
  properties: [
    '_id', 'name', 'summary', 'description', 'location', 'app', 'type', 'view', 'status', 'variables',
    'job', 'groups', 'incomingRefs', 'last_updated', 'encodingVersion', 'metrics', 'iterations',
    'deprecated', 'scheduled', 'retrySettings', 'childJobs',
  ],
  dereferences: ['job'],
});


const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** True for a well-formed dotted path; keys such as `$where` or `__proto__.x` never are. */
export function isWellFormedPath(path: string): boolean {
  return path.length <= 200 && PATH.test(path) && !path.split('.').some(isForbiddenKey);
}

/** Keys that reach prototypes or BSON internals; never valid anywhere in a search. */
export function isForbiddenKey(key: string): boolean {
  return key === '__proto__' || key === 'constructor' || key === 'prototype' || key === '_bsontype' || key.startsWith('$');
}

/**
 * A projection may name a top-level property, a registered field, a prefix of
 * one (`metrics`), or a path below an open-ended property (`variables.x`).
 */
export function isProjectable(type: DocType, path: string): boolean {
  if (!isWellFormedPath(path)) return false;
  const [head] = path.split('.');
  if (!type.properties.has(head!)) return false;
  if (!path.includes('.')) return true;
  if (type.fields.has(path)) return true;
  for (const f of type.fields.keys()) if (f.startsWith(`${path}.`)) return true;
  // Free-form sub-documents: any path below them is a valid projection.
  return head === 'variables' || head === 'tasks' || head === 'transitions' || head === 'output';
}
