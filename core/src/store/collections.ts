/**
 * The collections the core keeps, each declared once: its name and indexes
 * (the store it opens builds exactly these, kernel/store/collections.ts),
 * what one document is called in messages, and its document type, which
 * the services' repositories (kernel/store/repository.ts) hand back without
 * casts. The gateway declares its own (gateway/src/audit/collection.ts), so
 * neither service's file holds the other's tables.
 */
import { AppError, ARCHIVE_STATE, BadRequestError, declareCollection, index, jobs, plainCollection, searchedCollection, tasks } from '../../../kernel/index.ts';
import type { CollectionSpec, Doc, Keyed } from '../../../kernel/index.ts';
import type { CatalogAutomation } from '../automation-catalog/document.ts';
import type { JobDoc } from '../jobs/document.ts';
import type { StudioWorkflow } from '../engine/types.ts';
import type { OmAutomation } from '../operations-manager/automations/model.ts';
import type { TriggerDoc } from '../operations-manager/triggers/model.ts';
import type { FormDoc } from '../service-catalog/form-schema.ts';
import type { ServiceDoc } from '../service-catalog/catalog.ts';
import type { TransformationDoc } from '../transformations/document.ts';
import { accounts, catalogAutomations, groups, omAutomations, roles, transformations, triggers, workflows } from './doc-types.ts';

/** A document the core reads field by field, without a type of its own yet. */
export type PlainDoc = Doc & Keyed;

/** Messages the real platform's clients know keep the platform's "<Noun> <id> not found". */
const notFound = (noun: string) => (id: string) => `${noun} ${id} not found`;

/** The platform's 400 for a taken transformation name (docs/transformations.md). */
export const DUPLICATE_TRANSFORMATION_NAME = 'Transformation with given name already exists';

export const JOBS = declareCollection<JobDoc>(searchedCollection(jobs), { noun: 'job' });
export const TASKS = declareCollection<PlainDoc>(searchedCollection(tasks), { noun: 'task' });
export const ACCOUNTS = declareCollection<PlainDoc>(searchedCollection(accounts), {
  noun: 'account',
  notFound: notFound('Account'),
  uniqueName: { parameter: 'username', of: (doc) => String(doc['username']) },
});
export const GROUPS = declareCollection<PlainDoc>(searchedCollection(groups), {
  noun: 'group',
  notFound: notFound('Group'),
  uniqueName: { parameter: 'name', of: (doc) => `${String(doc['name'])} (provenance ${String(doc['provenance'])})` },
});
export const ROLES = declareCollection<PlainDoc>(searchedCollection(roles), {
  noun: 'role',
  notFound: notFound('Role'),
  uniqueName: { parameter: 'name', of: (doc) => `${String(doc['name'])} of ${String(doc['provenance'])}` },
});
/** Marked: every job start reads its workflow, and the lookup keeps it while the mark stays (core/src/workflows/lookup.ts). */
export const WORKFLOWS = declareCollection<StudioWorkflow>({ ...searchedCollection(workflows), changeMarked: true }, { noun: 'workflow', notFound: notFound('Workflow') });
export const TRANSFORMATIONS = declareCollection<TransformationDoc>(searchedCollection(transformations), {
  noun: 'transformation',
  notFound: notFound('Transformation'),
  duplicate: (doc) => new BadRequestError(DUPLICATE_TRANSFORMATION_NAME, [{ parameter: 'name', message: `${JSON.stringify(doc.name)} is already the name of another transformation` }]),
});
/** Automation-catalog automations; a taken name answers 400, as the platform's catalogs do (the code still says what happened). */
export const CATALOG_AUTOMATIONS = declareCollection<CatalogAutomation>(searchedCollection(catalogAutomations), {
  noun: 'automation',
  duplicate: (doc) => new AppError(400, 'CONFLICT', `Automation with given name already exists: ${doc.name}`, [{ parameter: 'name', message: 'is already used by another automation' }]),
});
export const TRIGGERS = declareCollection<TriggerDoc>(searchedCollection(triggers), { noun: 'trigger' });
/** Operations-manager automations (the automation catalog's live in `automations`). */
export const OM_AUTOMATIONS = declareCollection<OmAutomation>(searchedCollection(omAutomations), { noun: 'automation' });
export const SERVICES = declareCollection<ServiceDoc>(plainCollection('catalog_store', [index([['name', 1]], true)]), { noun: 'service', notFound: notFound('Service') });
export const FORMS = declareCollection<FormDoc & Doc>(plainCollection('forms', [index([['name', 1]], true)]), { noun: 'form', notFound: notFound('Form') });
export const ADAPTERS = declareCollection<PlainDoc>(plainCollection('adapters', [index([['name', 1]], true)]), { noun: 'adapter' });
/** A session's _id is the SHA-256 of its token, so the store never holds a usable token. */
export const SESSIONS = declareCollection<PlainDoc>(plainCollection('sessions', [index([['accountId', 1]]), index([['expiresAt', 1]])]), { noun: 'session' });
export const SERVICE_ACCOUNTS = declareCollection<PlainDoc>(plainCollection('service_accounts', [index([['name', 1]], true)]), { noun: 'service account', notFound: notFound('Service account') });
/** Core instances sharing the store, each with the gateway adapters it has (gateway manager). */
export const CLUSTER = declareCollection<PlainDoc>(plainCollection('cluster'), { noun: 'core instance' });
/** Gateway actions discovered as tasks, one document per gateway adapter (`_id` its name), read by every core. */
export const DISCOVERED_ACTIONS = declareCollection<PlainDoc>(plainCollection('discovered_actions'), { noun: 'discovered action list' });
/** Platform profiles (`_id` the profile's id, its name), as the real platform's collection of that name. */
export const PROFILES = declareCollection<PlainDoc>(plainCollection('iap_profiles'), { noun: 'profile' });

export const CORE_COLLECTIONS: readonly CollectionSpec[] = [
  ...[JOBS, TASKS, ACCOUNTS, GROUPS, ROLES, WORKFLOWS, TRANSFORMATIONS, CATALOG_AUTOMATIONS, TRIGGERS].map((c) => c.spec),
  ...[SERVICES, FORMS, ADAPTERS, SESSIONS, SERVICE_ACCOUNTS, CLUSTER, OM_AUTOMATIONS, DISCOVERED_ACTIONS, PROFILES].map((c) => c.spec),
  // Failed-login counters and lockouts shared by every core (login-limiter.ts), `{_id, count, expiresAt}`;
  // the store drops those past `expiresAt` as it counts (Store.increment).
  plainCollection('login_attempts', [index([['expiresAt', 1]])]),
  ARCHIVE_STATE,
];

export const CORE_COLLECTION_NAMES: readonly string[] = CORE_COLLECTIONS.map((c) => c.name);
