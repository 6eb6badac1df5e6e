/**
 * Records legacy calls for the migration audit. Records are written to the
 * store in batches off the request path; `close()` writes what is left, so
 * a clean stop loses nothing. With a journal, each record is also appended
 * to it before the call is answered, and the journal is cut down after each
 * batch is stored, so a killed gateway loses no record of an answered call:
 * the next start puts what the journal kept into the store. With a sink that
 * holds records on its own thread (the SQLite writer), each turn's records
 * are handed to it as soon as they are journaled; the journal counts them.
 */
import { newObjectId } from '../../../kernel/index.ts';
import type { Logger, Store } from '../../../kernel/index.ts';
import { journalLines } from './journal.ts';
import type { AuditJournal, JournaledRecord } from './journal.ts';
import { isHolding, storeSink } from './sink.ts';
import type { AuditSink, HoldingSink } from './sink.ts';

export type Outcome = 'rewritten' | 'refused' | 'failed';

export interface AuditRecord {
  readonly time: number;
  readonly operation: string;
  readonly entry: string;
  readonly source: string;
  readonly client: { readonly account: string | null; readonly clientId: string | null; readonly address: string; readonly userAgent: string };
  readonly outcome: Outcome;
  readonly status: number;
  readonly latencyMs: number;
  readonly deprecated: string;
  readonly removed: string;
  readonly replacement: string | null;
}

type Stored = JournaledRecord & Partial<AuditRecord>;

export interface RecorderOptions {
  /** Where records wait until they are stored; null (the default) for none, as with a store in memory. */
  readonly journal?: AuditJournal | null;
  /** Where batches are stored; by default the store itself, on this thread (writer-thread.ts moves SQLite's off it). */
  readonly sink?: AuditSink;
  readonly flushEveryMs?: number;
  readonly batchSize?: number;
}

/**
 * How long journaled lines wait before they go to the holder's thread: far
 * below the interval between V8's young-generation collections (tens to
 * hundreds of milliseconds), so the text never lives long enough to be
 * promoted.
 */
const HAND_OVER_MS = 10;

export class AuditRecorder {
  private buffer: Stored[] = [];
  /** Recorded this turn, not yet in the journal, with the answers waiting for them. */
  private unjournaled: Stored[] = [];
  private waiting: Array<() => void> = [];
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly journal: AuditJournal | null;
  private readonly sink: AuditSink;
  /** With a journal and a sink that holds records (the writer thread), records go there as they are journaled. */
  private readonly holder: HoldingSink | null;
  /** Lines of the last few milliseconds, handed over together: one message per turn woke the thread 1,300 times a second. */
  private outgoing = '';
  private outgoingTimer: NodeJS.Timeout | null = null;
  private readonly batchSize: number;
  private journalFailing = false;

  constructor(store: Store, private readonly logger: Logger, options: RecorderOptions = {}) {
    this.journal = options.journal ?? null;
    if (this.journal) this.journal.onBackgroundError = (err) => this.logger.warn('audit journal segment not deleted or closed', { error: String(err) });
    this.sink = options.sink ?? storeSink(store);
    this.holder = this.journal && isHolding(this.sink) ? this.sink : null;
    this.batchSize = options.batchSize ?? 500;
    // What a killed gateway left goes in with the first batch; records already stored are skipped then.
    if (this.journal && this.journal.recovered.length > 0) {
      if (this.holder) this.handOver(journalLines(this.journal.recovered));
      else this.buffer.push(...this.journal.recovered);
    }
    // Records kept half a second outlived young-generation collections and were copied and promoted;
    // stored within 100 ms, a legacy call's p99 at 1,600 req/s fell from 8.5 to 6.4 ms (BENCHMARKS.md).
    this.timer = setInterval(() => void this.flush(), options.flushEveryMs ?? 100);
    this.timer.unref();
  }

  /**
   * Records a call. `then` (the call's answer) runs once the record is
   * journaled, at once when there is no journal: a kill after the answer
   * keeps the record. The records of one turn of the event loop share one
   * journal write, made before the turn's answers go out.
   */
  record(record: AuditRecord, then?: () => void): void {
    // Time-ordered ids: the store's index grows at its end rather than at random places.
    const doc: Stored = { _id: newObjectId(record.time), ...record };
    if (!this.journal) {
      this.enqueue(doc);
      then?.();
      return;
    }
    this.unjournaled.push(doc);
    if (then) this.waiting.push(then);
    if (this.unjournaled.length === 1) setImmediate(this.journalTurn);
  }

  /** Journals the turn's records in one write, hands them to the store's buffer, then lets their answers go out. */
  private readonly journalTurn = (): void => {
    if (this.unjournaled.length === 0) return;
    const docs = this.unjournaled;
    const answers = this.waiting;
    this.unjournaled = [];
    this.waiting = [];
    const lines = this.journalAppend(docs);
    if (this.holder) this.handOver(lines ?? journalLines(docs));
    else for (const doc of docs) this.enqueue(doc);
    for (const answer of answers) {
      try {
        answer();
      } catch (err) {
        this.logger.error('answer after audit record failed', { error: String(err) });
      }
    }
  };

  private enqueue(doc: Stored): void {
    this.buffer.push(doc);
    if (this.buffer.length >= this.batchSize) void this.flush();
  }

  /** Lines just journaled, for the holder; the journal counts them until they are stored. */
  private handOver(lines: string): void {
    this.outgoing += lines;
    if (this.journal!.size >= this.batchSize) void this.flush();
    else this.outgoingTimer ??= setTimeout(this.sendOutgoing, HAND_OVER_MS);
  }

  private readonly sendOutgoing = (): void => {
    if (this.outgoingTimer) clearTimeout(this.outgoingTimer);
    this.outgoingTimer = null;
    if (this.outgoing.length === 0) return;
    this.holder!.hold(this.outgoing);
    this.outgoing = '';
  };

  /** The lines written, or null when the journal could not take them. */
  private journalAppend(docs: readonly Stored[]): string | null {
    if (!this.journal) return null;
    try {
      const lines = this.journal.append(docs);
      this.journalFailing = false;
      return lines;
    } catch (err) {
      // The calls are answered all the same; the records still reach the store with their batch.
      if (!this.journalFailing) this.logger.error('audit journal not written; records of calls answered meanwhile are lost if the gateway is killed', { error: String(err) });
      this.journalFailing = true;
      return null;
    }
  }

  /** Records accepted and waiting to be stored (the metrics' audit backlog); a chunk being inserted is not counted. */
  get backlog(): number {
    // With a holder, what waits is what the journal holds; otherwise the buffer (the journal holds it too).
    return this.unjournaled.length + (this.holder ? this.journal!.size : this.buffer.length);
  }

  /** Writes what is buffered; flushes never overlap, so records keep their order. */
  flush(): Promise<void> {
    // Records of this turn not yet journaled are journaled now, so a flush stores everything recorded before it.
    this.journalTurn();
    this.flushing = this.flushing.then(async () => {
      if (this.holder) return this.commitHeld(this.holder);
      if (this.buffer.length === 0) return;
      this.rotateJournal();
      let stored = 0;
      try {
        while (this.buffer.length > 0) {
          const chunk = this.buffer.splice(0, this.sink.chunk);
          try {
            await this.sink.store(chunk);
          } catch (err) {
            this.buffer.unshift(...chunk);
            this.logger.error('audit records not written; kept for the next attempt', { records: chunk.length, error: String(err) });
            return;
          }
          stored += chunk.length;
          // Between chunks the event loop answers calls: storing a batch never holds it longer than one chunk's hand-over.
          if (this.buffer.length > 0) await new Promise((resolve) => setImmediate(resolve));
        }
      } finally {
        this.cutJournal(stored);
      }
      // The stored segments are deleted off the event loop; a flush has ended once they are gone.
      await this.journal?.settled();
    });
    return this.flushing;
  }

  /**
   * Has the holder store what it was handed, then cuts the journal by as
   * many records. A thread that died took what it held: every record still
   * in the journal is handed over again (those stored already are skipped
   * by the store), and the journal is cut at the next commit instead.
   */
  private async commitHeld(holder: HoldingSink): Promise<void> {
    const journal = this.journal!;
    if (journal.size === 0) return;
    this.rotateJournal();
    this.sendOutgoing();
    // Records handed from here on follow the commit to the thread and are not part of it.
    const count = journal.size;
    let stored = true;
    try {
      await holder.commit();
    } catch (err) {
      stored = false;
      this.logger.error('audit records not written; kept for the next attempt', { records: count, error: String(err) });
    }
    if (holder.takeLoss()) {
      this.sendOutgoing();
      const records = journal.unstored();
      holder.hold(journalLines(records));
      this.logger.warn('audit writer thread restarted; the records it held were handed over again from the journal', { records: records.length });
      return;
    }
    if (!stored) return;
    this.cutJournal(count);
    await journal.settled();
  }

  /** Records journaled from here on go to a new segment, so the ones being stored can be deleted together. */
  private rotateJournal(): void {
    try {
      this.journal?.rotate();
    } catch (err) {
      // Nothing is lost: the current segment is written on, and deleted once all of it is stored.
      this.logger.warn('audit journal segment not begun', { error: String(err) });
    }
  }

  private cutJournal(stored: number): void {
    if (stored === 0) return;
    try {
      this.journal?.committed(stored);
    } catch (err) {
      // The journal keeps more than it needs; the next start skips what is stored.
      this.logger.warn('audit journal not cut down', { error: String(err) });
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.outgoingTimer) clearTimeout(this.outgoingTimer);
    await this.flush();
    await this.sink.close();
    this.journal?.close();
  }
}
