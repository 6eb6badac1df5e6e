/**
 * The search registries of the core's own collections (accounts, groups,
 * roles, workflows, automations, triggers, transformations), each with the
 * indexes its collection keeps. The mechanism, and the jobs and tasks
 * registries both services speak, are the kernel's (kernel/search/fields.ts);
 * `docType` fills in what these leave out (collection = name, sorted by name,
 * nothing dereferenced).
 */
import { docType, epoch, field, identity, index, iso } from '../../../kernel/index.ts';
import type { DocType } from '../../../kernel/index.ts';

/** Group and role membership, which accounts and groups both carry. */
const MEMBERSHIP = [
  field('memberOf.groupId', 'objectId', { arrayOfObjects: 'memberOf' }),
  field('assignedRoles.roleId', 'objectId', { arrayOfObjects: 'assignedRoles' }),
];

/** Who made and last changed a document, in the operations manager's spelling. */
const AUTHORSHIP = ['created', 'createdBy', 'lastUpdated', 'lastUpdatedBy'];

/** Documents written by compare-and-set keep a revision no answer shows. */
const REVISED = ['_rev'];

/**
 * The authorization module's lists filter and sort with the same machinery.
 * Secrets (`passwordHash`) are deliberately not fields: nothing can filter
 * on them, so no answer can become an oracle for them.
 */
export const accounts: DocType = docType({
  name: 'accounts',
  defaultSort: 'username',
  indexes: [index([['username', 1], ['provenance', 1]], true)],
  fields: [
    field('_id', 'objectId', { sortable: true }),
    field('username', 'string', { sortable: true }),
    field('firstname', 'string'),
    field('email', 'string'),
    field('provenance', 'string'),
    field('inactive', 'boolean'),
    field('loggedIn', 'boolean'),
    ...MEMBERSHIP,
  ],
  properties: ['_id', 'username', 'firstname', 'email', 'provenance', 'inactive', 'loggedIn', 'lastLogin', 'memberOf', 'assignedRoles', 'gitTokens', '_meta'],
});

export const groups: DocType = docType({
  name: 'groups',
  indexes: [index([['name', 1], ['provenance', 1]], true)],
  fields: [...identity('objectId'), field('description', 'string'), field('provenance', 'string'), field('inactive', 'boolean'), ...MEMBERSHIP],
  properties: ['_id', 'name', 'description', 'provenance', 'memberOf', 'assignedRoles', 'inactive', '_meta'],
});

export const roles: DocType = docType({
  name: 'roles',
  indexes: [index([['provenance', 1], ['name', 1]], true)],
  fields: [...identity('objectId'), field('provenance', 'string'), field('description', 'string')],
  properties: ['_id', 'provenance', 'name', 'description', 'allowedMethods', 'allowedViews', 'builtIn'],
});

/** Workflows (Automation Studio); their ids are UUIDs on the real platform. */
export const workflows: DocType = docType({
  name: 'workflows',
  indexes: [index([['name', 1]], true)],
  fields: [
    ...identity('uuid'),
    field('type', 'string'),
    field('description', 'string'),
    field('created_by', 'string'),
    field('last_updated', 'date', { ...iso, sortable: true }),
  ],
  properties: [
    '_id', 'name', 'description', 'type', 'tasks', 'transitions', 'groups', 'inputSchema', 'outputSchema', 'canvasVersion', 'encodingVersion', 'font_size',
    'created', 'created_by', 'last_updated', 'last_updated_by',
  ],
});

/**
 * Operations-manager automations (`/operations-manager/automations`). Only
 * `name` and `_id` sort: they are the indexed ones.
 */
export const omAutomations: DocType = docType({
  name: 'om_automations',
  indexes: [index([['name', 1]], true)],
  fields: [...identity('objectId'), ...['description', 'componentType', 'componentId', 'componentName'].map((path) => field(path, 'string'))],
  properties: ['_id', 'name', 'description', 'componentType', 'componentId', 'componentName', ...AUTHORSHIP, 'migratedFrom'],
  internal: REVISED,
});

/** Operations-manager triggers; `nextRunAt` is a field so the scheduler finds due ones. */
export const triggers: DocType = docType({
  name: 'triggers',
  indexes: [index([['actionId', 1]]), index([['name', 1]]), index([['nextRunAt', 1]])],
  fields: [
    ...identity('objectId'),
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
  ],
  properties: [
    '_id', 'name', 'description', 'type', 'enabled', 'actionType', 'actionId', 'routeName', 'verb', 'schema', 'formId',
    'legacyWrapper', 'firstRunAt', 'repeatInterval', 'processMissedRuns', 'nextRunAt', 'lastRunAt', ...AUTHORSHIP,
  ],
  internal: REVISED,
});

/**
 * Automation-catalog automations (Agenda-shaped). The schedule fields are
 * declared so the scheduler can query them in both stores; only `name` and
 * `_id` sort, being the indexed ones.
 */
export const catalogAutomations: DocType = docType({
  name: 'automations',
  indexes: [index([['name', 1]], true), index([['nextRunAt', 1]])],
  fields: [
    ...identity('objectId'),
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
  ],
  properties: [
    '_id', 'name', 'type', 'data', 'nextRunAt', 'repeatInterval', 'repeatTimezone', 'lastRunAt', 'lastFinishedAt', 'lockedAt', 'disabled',
    'failedAt', 'failReason', 'failCount', 'lastModifiedBy', 'migratedToOM', 'correspondingOMAutomationId',
  ],
  internal: REVISED,
});

/** Transformations (`/transformations`); only the indexed `name` and `_id` sort. */
export const transformations: DocType = docType({
  name: 'transformations',
  indexes: [index([['name', 1]], true)],
  fields: [...identity('objectId'), field('description', 'string')],
  properties: [
    '_id', 'name', 'description', 'incoming', 'outgoing', 'mapping', 'steps', 'functions', 'comments', 'tags', 'view',
    ...AUTHORSHIP, 'version',
  ],
});
