/**
 * What the gateway keeps in its store: its migration audit, one record per
 * legacy call, and the archive's lease for it. Nothing else: the core's
 * collections are the core's (docs/architecture.md).
 */
import { ARCHIVE_STATE, declareCollection, field, index, registry, searchedCollection } from '../../../kernel/index.ts';
import type { CollectionSpec, DocType } from '../../../kernel/index.ts';
import type { JournaledRecord } from './journal.ts';

/** The gateway's record of each legacy call, for the migration audit. */
export const audit: DocType = Object.freeze({
  name: 'audit',
  collection: 'audit',
  defaultSort: 'time',
  indexes: [index([['time', 1], ['_id', 1]]), index([['operation', 1], ['time', 1]])],
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

/** The audit collection, named once: the recorder's sink and the report read and write it through this. */
export const AUDIT = declareCollection<JournaledRecord>(searchedCollection(audit), { noun: 'audit record' });

export const GATEWAY_COLLECTIONS: readonly CollectionSpec[] = [AUDIT.spec, ARCHIVE_STATE];
