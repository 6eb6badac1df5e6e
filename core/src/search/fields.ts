/**
 * Field registry: for each searchable document type, the fields a search may
 * name, their value type, whether they hold arrays, and whether they sort.
 * Everything the search language does with a field is decided here, so the
 * parser, both store compilers and the projection rules agree by construction.
 */

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

export type DocTypeName = 'jobs' | 'tasks' | 'accounts' | 'groups' | 'roles' | 'workflows' | 'audit' | 'om_automations' | 'triggers' | 'automations' | 'transformations';

export interface DocType {
  readonly name: DocTypeName;
  /** Collection in the store. */
  readonly collection: DocTypeName;
  readonly fields: ReadonlyMap<string, FieldDef>;
  /** Top-level properties a projection may name besides the registered fields. */
  readonly properties: ReadonlySet<string>;
  readonly dereferences: ReadonlySet<string>;
  /** Stored properties returned only when dereferenced (the job's `output`). */
  readonly dereferenceOnly: ReadonlySet<string>;
  /** Stored properties no answer ever shows (the engine's bookkeeping). */
  readonly internal: ReadonlySet<string>;
  readonly defaultSort: string;
}

interface FieldOptions {
  array?: boolean;
  arrayOfObjects?: string;
  sortable?: boolean;
  textSearch?: boolean;
  dateEncoding?: DateEncoding;
}

function field(path: string, type: ScalarType, options: FieldOptions = {}): FieldDef {
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

function registry(defs: FieldDef[]): ReadonlyMap<string, FieldDef> {
  return new Map(defs.map((d) => [d.path, d]));
}

const epoch = { dateEncoding: 'epochMs' } as const;
const iso = { dateEncoding: 'isoString' } as const;

export const jobs: DocType = Object.freeze({
  name: 'jobs',
  collection: 'jobs',
  defaultSort: 'name',
  fields: registry([
    field('_id', 'objectId', { sortable: true }),
    field('name', 'string', { sortable: true }),
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
  ]),
  properties: new Set([
    '_id', 'name', 'description', 'type', 'tasks', 'transitions', 'status', 'variables', 'watchers',
    'groups', 'ancestors', 'metrics', 'created', 'created_by', 'last_updated', 'last_updated_by',
    'error', 'output', 'decorators', 'workflow',
  ]),
  dereferences: new Set(['groups', 'tasks', 'output', 'accounts.metrics.user']),
  dereferenceOnly: new Set(['output']),
  internal: new Set(['_rev', '_runs', '_waiting', '_outputs', '_outputKeys', '_inflight', '_taskRuns', '_treeJobs']),
});

export const tasks: DocType = Object.freeze({
  name: 'tasks',
  collection: 'tasks',
  defaultSort: 'name',
  fields: registry([
    field('_id', 'uuid', { sortable: true }),
    field('name', 'string', { sortable: true }),
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
  ]),
  properties: new Set([
    '_id', 'name', 'summary', 'description', 'location', 'app', 'type', 'view', 'status', 'variables',
    'job', 'groups', 'incomingRefs', 'last_updated', 'encodingVersion', 'metrics', 'iterations',
    'deprecated', 'scheduled', 'retrySettings', 'childJobs',
  ]),
  dereferences: new Set(['job']),
  dereferenceOnly: new Set<string>(),
  internal: new Set<string>(),
});

/**
 * The authorization module's lists filter and sort with the same machinery.
 * Secrets (`passwordHash`) are deliberately not fields: nothing can filter
 * on them, so no answer can become an oracle for them.
 */
export const accounts: DocType = Object.freeze({
  name: 'accounts',
  collection: 'accounts',
  defaultSort: 'username',
  fields: registry([
    field('_id', 'objectId', { sortable: true }),
    field('username', 'string', { sortable: true }),
    field('firstname', 'string'),
    field('email', 'string'),
    field('provenance', 'string'),
    field('inactive', 'boolean'),
    field('loggedIn', 'boolean'),
    field('memberOf.groupId', 'objectId', { arrayOfObjects: 'memberOf' }),
    field('assignedRoles.roleId', 'objectId', { arrayOfObjects: 'assignedRoles' }),
  ]),
  properties: new Set(['_id', 'username', 'firstname', 'email', 'provenance', 'inactive', 'loggedIn', 'lastLogin', 'memberOf', 'assignedRoles', 'gitTokens', '_meta']),
  dereferences: new Set<string>(),
  dereferenceOnly: new Set<string>(),
  internal: new Set<string>(),
});

export const groups: DocType = Object.freeze({
  name: 'groups',
  collection: 'groups',
  defaultSort: 'name',
  fields: registry([
    field('_id', 'objectId', { sortable: true }),
    field('name', 'string', { sortable: true }),
    field('description', 'string'),
    field('provenance', 'string'),
    field('inactive', 'boolean'),
    field('memberOf.groupId', 'objectId', { arrayOfObjects: 'memberOf' }),
    field('assignedRoles.roleId', 'objectId', { arrayOfObjects: 'assignedRoles' }),
  ]),
  properties: new Set(['_id', 'name', 'description', 'provenance', 'memberOf', 'assignedRoles', 'inactive', '_meta']),
  dereferences: new Set<string>(),
  dereferenceOnly: new Set<string>(),
  internal: new Set<string>(),
});

export const roles: DocType = Object.freeze({
  name: 'roles',
  collection: 'roles',
  defaultSort: 'name',
  fields: registry([
    field('_id', 'objectId', { sortable: true }),
    field('name', 'string', { sortable: true }),
    field('provenance', 'string'),
    field('description', 'string'),
  ]),
  properties: new Set(['_id', 'provenance', 'name', 'description', 'allowedMethods', 'allowedViews', 'builtIn']),
  dereferences: new Set<string>(),
  dereferenceOnly: new Set<string>(),
  internal: new Set<string>(),
});

/** Workflows (Automation Studio); their ids are UUIDs on the real platform. */
export const workflows: DocType = Object.freeze({
  name: 'workflows',
  collection: 'workflows',
  defaultSort: 'name',
  fields: registry([
    field('_id', 'uuid', { sortable: true }),
    field('name', 'string', { sortable: true }),
    field('type', 'string'),
    field('description', 'string'),
    field('created_by', 'string'),
    field('last_updated', 'date', { ...iso, sortable: true }),
  ]),
  properties: new Set(['_id', 'name', 'description', 'type', 'tasks', 'transitions', 'groups', 'inputSchema', 'outputSchema', 'canvasVersion', 'encodingVersion', 'font_size', 'created', 'created_by', 'last_updated', 'last_updated_by']),
  dereferences: new Set<string>(),
  dereferenceOnly: new Set<string>(),
  internal: new Set<string>(),
});

/** The gateway's record of each legacy call, for the migration audit. */
export const audit: DocType = Object.freeze({
  name: 'audit',
  collection: 'audit',
  defaultSort: 'time',
  fields: registry([
    field('_id', 'uuid', { sortable: true }),
    field('time', 'date', { dateEncoding: 'epochMs', sortable: true }),
    field('operation', 'string'),
    field('entry', 'string'),
    field('outcome', 'string'),
    field('status', 'number'),
    field('client.account', 'string'),
    field('client.address', 'string'),
  ]),
  properties: new Set(['_id', 'time', 'operation', 'entry', 'source', 'outcome', 'status', 'latencyMs', 'client', 'deprecated', 'removed', 'replacement']),
  dereferences: new Set<string>(),
  dereferenceOnly: new Set<string>(),
  internal: new Set<string>(),
});

/**
 * Operations-manager automations (`/operations-manager/automations`). Only
 * `name` and `_id` sort: they are the indexed ones.
 */
export const omAutomations: DocType = Object.freeze({
  name: 'om_automations',
  collection: 'om_automations',
  defaultSort: 'name',
  fields: registry([
    field('_id', 'objectId', { sortable: true }),
    field('name', 'string', { sortable: true }),
    field('description', 'string'),
    field('componentType', 'string'),
    field('componentId', 'string'),
    field('componentName', 'string'),
  ]),
  properties: new Set(['_id', 'name', 'description', 'componentType', 'componentId', 'componentName', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy', 'migratedFrom']),
  dereferences: new Set<string>(),
  dereferenceOnly: new Set<string>(),
  internal: new Set(['_rev']),
});

/** Operations-manager triggers; `nextRunAt` is a field so the scheduler finds due ones. */
export const triggers: DocType = Object.freeze({
  name: 'triggers',
  collection: 'triggers',
  defaultSort: 'name',
  fields: registry([
    field('_id', 'objectId', { sortable: true }),
    field('name', 'string', { sortable: true }),
    field('description', 'string'),
    field('type', 'string'),
    field('enabled', 'boolean'),
    field('actionType', 'string'),
    field('actionId', 'objectId'),
    field('routeName', 'string'),
    field('verb', 'string'),
    field('formId', 'string'),
    field('processMissedRuns', 'string'),
    field('nextRunAt', 'date', epoch),
  ]),
  properties: new Set([
    '_id', 'name', 'description', 'type', 'enabled', 'actionType', 'actionId', 'routeName', 'verb', 'schema', 'formId',
    'legacyWrapper', 'firstRunAt', 'repeatInterval', 'processMissedRuns', 'nextRunAt', 'lastRunAt', 'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy',
  ]),
  dereferences: new Set<string>(),
  dereferenceOnly: new Set<string>(),
  internal: new Set(['_rev']),
});

/**
 * Automation-catalog automations (Agenda-shaped). The schedule fields are
 * declared so the scheduler can query them in both stores; only `name` and
 * `_id` sort, being the indexed ones.
 */
export const automations: DocType = Object.freeze({
  name: 'automations',
  collection: 'automations',
  defaultSort: 'name',
  fields: registry([
    field('_id', 'objectId', { sortable: true }),
    field('name', 'string', { sortable: true }),
    field('type', 'string'),
    field('data.description', 'string'),
    field('data.workflow', 'string'),
    field('data.workflowId', 'string'),
    field('data.formId', 'string'),
    // Group access (automation-catalog/gbac.ts): lists reach only what the caller's groups may see.
    field('data.gbac.read', 'string', { array: true }),
    field('data.gbac.write', 'string', { array: true }),
    field('nextRunAt', 'date', iso),
    field('lastRunAt', 'date', iso),
    field('lockedAt', 'date', iso),
    field('repeatInterval', 'string'),
    field('disabled', 'boolean'),
    field('lastModifiedBy', 'string'),
  ]),
  properties: new Set([
    '_id', 'name', 'type', 'data', 'nextRunAt', 'repeatInterval', 'repeatTimezone', 'lastRunAt', 'lastFinishedAt', 'lockedAt', 'disabled',
    'failedAt', 'failReason', 'failCount', 'lastModifiedBy', 'migratedToOM', 'correspondingOMAutomationId',
  ]),
  dereferences: new Set<string>(),
  dereferenceOnly: new Set<string>(),
  internal: new Set(['_rev']),
});

/** Transformations (`/transformations`); only the indexed `name` and `_id` sort. */
export const transformations: DocType = Object.freeze({
  name: 'transformations',
  collection: 'transformations',
  defaultSort: 'name',
  fields: registry([
    field('_id', 'objectId', { sortable: true }),
    field('name', 'string', { sortable: true }),
    field('description', 'string'),
  ]),
  properties: new Set([
    '_id', 'name', 'description', 'incoming', 'outgoing', 'mapping', 'steps', 'functions', 'comments', 'tags', 'view',
    'created', 'createdBy', 'lastUpdated', 'lastUpdatedBy', 'version',
  ]),
  dereferences: new Set<string>(),
  dereferenceOnly: new Set<string>(),
  internal: new Set<string>(),
});

export const docTypes: Readonly<Record<DocTypeName, DocType>> = Object.freeze({ jobs, tasks, accounts, groups, roles, workflows, audit, om_automations: omAutomations, triggers, automations, transformations });

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
