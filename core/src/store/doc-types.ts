/**
 * The search registries of the core's own collections (accounts, groups,
 * roles, workflows, automations, triggers, transformations), each with the
 * indexes its collection keeps. The mechanism, and the jobs and tasks
 * registries both services speak, are the kernel's (kernel/search/fields.ts).
 */
import { epoch, field, index, iso, registry } from '../../../kernel/index.ts';
import type { DocType } from '../../../kernel/index.ts';

/**
 * The authorization module's lists filter and sort with the same machinery.
 * Secrets (`passwordHash`) are deliberately not fields: nothing can filter
 * on them, so no answer can become an oracle for them.
 */
export const accounts: DocType = Object.freeze({
  name: 'accounts',
  collection: 'accounts',
  defaultSort: 'username',
  indexes: [index([['username', 1], ['provenance', 1]], true)],
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
  indexes: [index([['name', 1], ['provenance', 1]], true)],
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
  indexes: [index([['provenance', 1], ['name', 1]], true)],
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
  indexes: [index([['name', 1]], true)],
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

/**
 * Operations-manager automations (`/operations-manager/automations`). Only
 * `name` and `_id` sort: they are the indexed ones.
 */
export const omAutomations: DocType = Object.freeze({
  name: 'om_automations',
  collection: 'om_automations',
  defaultSort: 'name',
  indexes: [index([['name', 1]], true)],
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
  indexes: [index([['actionId', 1]]), index([['name', 1]]), index([['nextRunAt', 1]])],
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
export const catalogAutomations: DocType = Object.freeze({
  name: 'automations',
  collection: 'automations',
  defaultSort: 'name',
  indexes: [index([['name', 1]], true), index([['nextRunAt', 1]])],
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
  indexes: [index([['name', 1]], true)],
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
