/**
 * The collections the core keeps, with their indexes: the store it opens
 * builds exactly these (kernel/store/collections.ts). The gateway declares its
 * own (gateway/src/audit/collection.ts), so neither service's file holds the
 * other's tables.
 */
import { ARCHIVE_STATE, index, jobs, plainCollection, searchedCollection, tasks } from '../../../kernel/index.ts';
import type { CollectionSpec } from '../../../kernel/index.ts';
import { accounts, automations, groups, omAutomations, roles, transformations, triggers, workflows } from './doc-types.ts';

export const CORE_COLLECTIONS: readonly CollectionSpec[] = [
  ...[jobs, tasks, accounts, groups, roles, workflows, transformations, automations, triggers].map(searchedCollection),
  plainCollection('catalog_store', [index([['name', 1]], true)]),
  plainCollection('forms', [index([['name', 1]], true)]),
  plainCollection('adapters', [index([['name', 1]], true)]),
  // A session's _id is the SHA-256 of its token, so the store never holds a usable token.
  plainCollection('sessions', [index([['accountId', 1]]), index([['expiresAt', 1]])]),
  plainCollection('service_accounts', [index([['name', 1]], true)]),
  // Core instances sharing the store, each with the gateway adapters it has (gateway manager).
  plainCollection('cluster'),
  // Operations-manager automations (the automation catalog's live in `automations`).
  searchedCollection(omAutomations),
  // Gateway actions discovered as tasks, one document per gateway adapter (`_id` its name), read by every core.
  plainCollection('discovered_actions'),
  // Platform profiles (`_id` the profile's id, its name), as the real platform's collection of that name.
  plainCollection('iap_profiles'),
  // Failed-login counters and lockouts shared by every core (login-limiter.ts), `{_id, count, expiresAt}`;
  // the store drops those past `expiresAt` as it counts (Store.increment).
  plainCollection('login_attempts', [index([['expiresAt', 1]])]),
  ARCHIVE_STATE,
];

export const CORE_COLLECTION_NAMES: readonly string[] = CORE_COLLECTIONS.map((c) => c.name);
