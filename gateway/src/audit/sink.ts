/**
 * Where the recorder's batches go. A sink stores records in the order given;
 * records already stored (replayed from the journal) are skipped, so storing
 * twice is harmless. `chunk` is how many records one `store` call takes: the
 * recorder hands a batch over that many at a time, the event loop free
 * between, so no call waits behind more than one chunk's work.
 */
import { DuplicateKeyError } from '../../../kernel/index.ts';
import type { Doc, Store } from '../../../kernel/index.ts';
import type { JournaledRecord } from './journal.ts';

export interface AuditSink {
  readonly chunk: number;
  store(records: readonly JournaledRecord[]): Promise<void>;
  close(): Promise<void>;
}

/** Inserts the records; those already stored (replayed from the journal) are skipped. */
export async function storeRecords(store: Store, records: readonly JournaledRecord[]): Promise<void> {
  const audit = store.collection('audit');
  try {
    await audit.insertMany(records as readonly Doc[]);
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    const stored = new Set((await audit.findByIds(records.map((d) => d._id))).map((d) => d['_id']));
    const fresh = records.filter((d) => !stored.has(d._id));
    if (fresh.length > 0) await audit.insertMany(fresh as readonly Doc[]);
  }
}

/**
 * Stores on the caller's own thread: right for MongoDB, whose driver does
 * its I/O off the event loop, and for a store in memory. A chunk of 500
 * inserted at once held the event loop about 6 ms in SQLite (BENCHMARKS.md);
 * 50 hold it well under a millisecond.
 */
export function storeSink(store: Store): AuditSink {
  return { chunk: 50, store: (records) => storeRecords(store, records), close: async () => undefined };
}
