/**
 * The collections the core knows and the indexes declared for each. Both
 * stores build exactly these; `GET /indexes/:collection/status` compares
 * what exists against them. A sortable search field's index ends with `_id`
 * so that the tie-breaking sort key is served by the same index.
 */
import { docTypes } from '../search/fields.ts';
import type { DocType } from '../search/fields.ts';
import type { IndexDescription } from './types.ts';

export const COLLECTION_NAMES = [
  'jobs', 'tasks', 'accounts', 'groups', 'roles', 'workflows', 'transformations',
  'automations', 'triggers', 'catalog_store', 'forms', 'adapters', 'sessions', 'service_accounts', 'audit', 'cluster',
  'om_automations', 'discovered_actions', 'iap_profiles', 'login_attempts', 'archive_state',
] as const;
export type CollectionName = (typeof COLLECTION_NAMES)[number];

export function isCollectionName(name: string): name is CollectionName {
  return (COLLECTION_NAMES as readonly string[]).includes(name);
}

export interface CollectionSpec {
  readonly name: CollectionName;
  /** The search registry, for jobs and tasks. */
  readonly docType: DocType | null;
  readonly indexes: readonly IndexDescription[];
}

type KeyPart = [path: string, direction: 1 | -1 | 'text'];

/** Index names follow the MongoDB convention (`field_1_other_-1`). */
function index(parts: KeyPart[], unique = false): IndexDescription {
  const key: Record<string, 1 | -1 | 'text'> = {};
  for (const [path, dir] of parts) key[path] = dir;
  const name = parts.map(([path, dir]) => `${path}_${dir}`).join('_');
  return unique ? { name, key, unique } : { name, key };
}

const specs: Record<CollectionName, CollectionSpec> = {
  jobs: {
    name: 'jobs',
    docType: docTypes.jobs,
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
  },
  tasks: {
    name: 'tasks',
    docType: docTypes.tasks,
    indexes: [
      index([['job._id', 1]]),
      index([['name', 1], ['_id', 1]]),
      index([['status', 1], ['name', 1], ['_id', 1]]),
      index([['metrics.start_time', -1], ['_id', -1]]),
      index([['last_updated', -1], ['_id', -1]]),
      index([['status', 1], ['_id', 1]]),
      index([['type', 1], ['_id', 1]]),
      index([['description', 1], ['_id', 1]]),
    ],
  },
  accounts: { name: 'accounts', docType: docTypes.accounts, indexes: [index([['username', 1], ['provenance', 1]], true)] },
  groups: { name: 'groups', docType: docTypes.groups, indexes: [index([['name', 1], ['provenance', 1]], true)] },
  roles: { name: 'roles', docType: docTypes.roles, indexes: [index([['provenance', 1], ['name', 1]], true)] },
  workflows: { name: 'workflows', docType: docTypes.workflows, indexes: [index([['name', 1]], true)] },
  transformations: { name: 'transformations', docType: docTypes.transformations, indexes: [index([['name', 1]], true)] },
  automations: { name: 'automations', docType: docTypes.automations, indexes: [index([['name', 1]], true), index([['nextRunAt', 1]])] },
  // nextRunAt: the trigger scheduler looks for due schedule triggers by it.
  triggers: { name: 'triggers', docType: docTypes.triggers, indexes: [index([['actionId', 1]]), index([['name', 1]]), index([['nextRunAt', 1]])] },
  catalog_store: { name: 'catalog_store', docType: null, indexes: [index([['name', 1]], true)] },
  forms: { name: 'forms', docType: null, indexes: [index([['name', 1]], true)] },
  adapters: { name: 'adapters', docType: null, indexes: [index([['name', 1]], true)] },
  // A session's _id is the SHA-256 of its token, so the store never holds a usable token.
  sessions: { name: 'sessions', docType: null, indexes: [index([['accountId', 1]]), index([['expiresAt', 1]])] },
  service_accounts: { name: 'service_accounts', docType: null, indexes: [index([['name', 1]], true)] },
  // Operations-manager automations (the automation catalog's live in `automations`).
  om_automations: { name: 'om_automations', docType: docTypes.om_automations, indexes: [index([['name', 1]], true)] },
  // Core instances sharing the store, each with the gateway adapters it has (gateway manager).
  cluster: { name: 'cluster', docType: null, indexes: [] },
  // Gateway actions discovered as tasks, one document per gateway adapter (`_id` its name), read by every core.
  discovered_actions: { name: 'discovered_actions', docType: null, indexes: [] },
  // Platform profiles (`_id` the profile's id, its name), as the real platform's collection of that name.
  iap_profiles: { name: 'iap_profiles', docType: null, indexes: [] },
  // Failed-login counters and lockouts shared by every core (login-limiter.ts), `{_id, count, expiresAt}`;
  // the store drops those past `expiresAt` as it counts (Store.increment).
  login_attempts: { name: 'login_attempts', docType: null, indexes: [index([['expiresAt', 1]])] },
  // The archiver's lease and unfinished batch, one document per archive group (docs/archive.md).
  archive_state: { name: 'archive_state', docType: null, indexes: [] },
  // The gateway's migration audit: one record per legacy call.
  audit: { name: 'audit', docType: docTypes.audit, indexes: [index([['time', 1], ['_id', 1]]), index([['operation', 1], ['time', 1]])] },
};

export function collectionSpec(name: CollectionName): CollectionSpec {
  return specs[name];
}

/**
 * True when a declared index of the collection is `path` then `_id`: a sort
 * on it, `_id` breaking ties, walks the index in either direction instead of
 * sorting every match.
 */
export function sortIsIndexed(name: CollectionName, path: string): boolean {
  if (path === '_id') return true;
  return specs[name].indexes.some((ix) => {
    const [first, second] = keyParts(ix);
    return first?.[0] === path && second?.[0] === '_id' && first[1] !== 'text' && first[1] === second[1];
  });
}

/** Key parts of an index, in order. */
export function keyParts(ix: IndexDescription): Array<[string, 1 | -1 | 'text']> {
  return Object.entries(ix.key);
}
