/**
 * Where the recorder's batches go. A sink stores records in the order given;
 * records already stored (replayed from the journal) are skipped, so storing
 * twice is harmless. `chunk` is how many records one `store` call takes: the
 * recorder hands a batch over that many at a time, the event loop free
 * between, so no call waits behind more than one chunk's work.
 */
import { repository } from '../../../kernel/index.ts';
import type { Store } from '../../../kernel/index.ts';
import { AUDIT } from './collection.ts';
import type { JournaledRecord } from './journal.ts';

export interface AuditSink {
  readonly chunk: number;
  store(records: readonly JournaledRecord[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * A sink that is handed each turn's records as soon as they are journaled
 * and keeps them on a thread of its own until told to store them
 * (writer-thread.ts). The event loop then keeps no record: records held
 * there for the tenth of a second before a batch outlived V8's young
 * generation and were promoted to the old one, whose full collections held
 * legacy calls (BENCHMARKS.md, the legacy call's tail).
 */
export interface HoldingSink extends AuditSink {
  /** Hands over records as journal lines (journal.ts `journalLines`). */
  hold(lines: string): void;
  /** Stores every record handed over before this call, in the order handed; rejects when they could not be stored (they are kept and tried again). */
  commit(): Promise<void>;
  /** True, once, after the thread died: the records it held are gone and must be handed over again. */
  takeLoss(): boolean;
}

export function isHolding(sink: AuditSink): sink is HoldingSink {
  return typeof (sink as Partial<HoldingSink>).hold === 'function';
}

/** Inserts the records; those already stored (replayed from the journal) are skipped. */
export async function storeRecords(store: Store, records: readonly JournaledRecord[]): Promise<void> {
  await repository(store, AUDIT).insertNew(records);
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
