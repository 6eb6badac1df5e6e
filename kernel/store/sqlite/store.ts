/**
 * The embedded default store: one SQLite file under DATA_DIR, in WAL mode.
 * synchronous=NORMAL keeps every committed transaction across a killed
 * process (only a power cut can lose the last commits), at a fraction of the
 * cost of an fsync per write.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { checkedSpecs } from '../collections.ts';
import type { CollectionSpec } from '../collections.ts';
import type { SearchThreadChange, SearchThreadStatus, Store, WriteOp } from '../types.ts';

/** Rolls a batch back when a revision check fails. */
class RevisionMoved extends Error {}
import { SqliteCollection } from './collection.ts';
import { storeError } from './store-errors.ts';
import { backfillAll, ensureValueCounters } from './counters.ts';
import { TEXT_TIDY_DEFAULTS } from './text-tidy.ts';
import type { TextTidyOptions } from './text-tidy.ts';
import { createIndex, createTable, ensureChangeMark, ensureRowCounter, refreshTextTrigger } from './schema.ts';
import { CheckpointThread } from './checkpoint-thread.ts';
import { SearchThread } from './search-thread.ts';
import { walFileBytes } from './wal-length.ts';
import type { CheckpointFigures } from './checkpoint-thread.ts';

/** Bytes a WAL file is cut back to after a burst (SQLite's journal_size_limit): 64 MiB. */
const WAL_SIZE_LIMIT = 64 * 1024 * 1024;
/**
 * With a checkpoint thread, the WAL's length in pages (4 KiB) at which a
 * commit checkpoints all the same: 64 MiB, the size the file is cut back to.
 * At 16 MiB an archive pass over 100,000 jobs outran the thread now and then,
 * and about one delete batch in a hundred held the event loop 40 ms for the
 * checkpoint it ran (docs/archive.md).
 */
const WAL_PAGES_BEHIND = 16_384;

/**
 * The WAL file's size past which background writers wait (32 MiB): half the
 * length at which a commit checkpoints on the event loop, so an archive pass
 * beside long reads stops short of it (docs/archive.md).
 */
const WAL_BYTES_CROWDED = 32 * 1024 * 1024;

/** How long a statement waits for another connection's lock before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Switching a file to WAL needs an exclusive lock, and SQLite can refuse it
 * at once with SQLITE_BUSY, without its busy handler, while another process
 * opens the same new file (two cores started together on an empty store).
 * Retried every 10 ms for as long as the busy timeout; start-up only.
 */
function switchToWal(db: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if (!(err instanceof Database.SqliteError && err.code === 'SQLITE_BUSY') || Date.now() >= deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

export interface SqliteStoreOptions {
  /** The collections the service keeps (core/src/store/collections.ts, gateway/src/audit/collection.ts): only these are built. */
  readonly collections: readonly CollectionSpec[];
  /** Directory of the database file; `:memory:` for a throwaway store. */
  readonly dataDir: string;
  readonly fileName?: string;
  /** Search totals kept per collection until the next write; 0 turns the cache off. */
  readonly countCacheEntries?: number;
  /**
   * False when another connection (the gateway's audit writer thread) makes
   * the WAL checkpoints: this one then never runs one at a commit.
   */
  readonly autoCheckpoint?: boolean;
  /**
   * When above 0, WAL checkpoints run on a thread of their own with its own
   * connection, every this many milliseconds, and never at this connection's
   * commits (checkpoint-thread.ts); 0 leaves them to SQLite, at commit.
   */
  readonly checkpointMs?: number;
  /** Rows counted per transaction when value counters are back-filled at open (an upgraded store). */
  readonly backfillBatchRows?: number;
  /** When a text index's deleted entries are dropped (text-tidy.ts); tests make it sooner. */
  readonly textTidy?: TextTidyOptions;
  /** Callers' searches (`searchJson`) run on a thread of their own with its own connection (search-thread.ts). */
  readonly searchThread?: boolean;
  /** Told when a search thread is ready, and when one stops without being closed (the store has no logger). */
  readonly onSearchThread?: (change: SearchThreadChange) => void;
  /** The wait before the search thread's second restart in a row (search-thread.ts); tests make it shorter. */
  readonly searchRestartMs?: number;
}

/**
 * Searches waiting for the search thread past which the next is refused rather than queued: 64 of every
 * caller's (503), and a quarter of that of one caller's (429), so three callers at their share still leave room.
 */
const SEARCH_BOUNDS = { held: 64, heldPerCaller: 16 } as const;
/** The search thread's page cache, KiB: a quarter of the store connection's. */
const SEARCH_CACHE_KB = 16_384;

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly collections = new Map<string, SqliteCollection>();

  private checkpoints: CheckpointThread | null = null;
  private searches: SearchThread | null = null;

  private constructor(private readonly db: Database.Database, specs: readonly CollectionSpec[], countCacheEntries: number, textTidy: TextTidyOptions) {
    for (const spec of specs) this.collections.set(spec.name, new SqliteCollection(db, spec, countCacheEntries, textTidy, () => this.searches));
  }

  /** True while callers' searches run on the search thread (tests, benches). */
  get searchesOffLoop(): boolean {
    return this.searches?.ready === true;
  }

  searchThread(): SearchThreadStatus {
    return this.searches?.status() ?? { state: 'off', held: 0, restarts: 0 };
  }

  /** What the checkpoint thread has done, when the store has one (tests, benches). */
  checkpointFigures(): Promise<CheckpointFigures | null> {
    return this.checkpoints?.figures() ?? Promise.resolve(null);
  }

  static open(options: SqliteStoreOptions): SqliteStore {
    const specs = checkedSpecs(options.collections);
    let file = ':memory:';
    if (options.dataDir !== ':memory:') {
      mkdirSync(options.dataDir, { recursive: true });
      file = join(options.dataDir, options.fileName ?? 'iap.sqlite');
    }
    const db = new Database(file);
    // First, so that even switching to WAL waits for a second process opening the same new file.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    switchToWal(db);
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('cache_size = -65536');
    db.pragma('temp_store = MEMORY');
    if (options.autoCheckpoint === false) db.pragma('wal_autocheckpoint = 0');
    // A new table gets its declared indexes at once; an existing one keeps what
    // it has, and POST /indexes/:collection builds what is missing. IMMEDIATE:
    // two processes creating the schema of a new file at once would otherwise
    // both read it, and the second's upgrade to writing fails at once (SQLITE_BUSY).
    db.transaction(() => {
      for (const spec of specs) {
        if (createTable(db, spec)) for (const ix of spec.indexes) createIndex(db, spec.name, ix);
        ensureRowCounter(db, spec.name);
        ensureValueCounters(db, spec.name);
        refreshTextTrigger(db, spec);
        if (spec.changeMarked === true) ensureChangeMark(db, spec.name);
      }
    }).immediate();
    // Each batch is its own transaction, so another process can write between them.
    backfillAll(db, specs.map((c) => c.name), options.backfillBatchRows ?? 20_000);
    const store = new SqliteStore(db, specs, options.countCacheEntries ?? 1000, options.textTidy ?? TEXT_TIDY_DEFAULTS);
    if (file !== ':memory:' && (options.checkpointMs ?? 0) > 0) {
      // Past this many pages (the thread behind a steady stream of commits), a commit checkpoints after all: the
      // WAL stays bounded, and what is left to copy then is what the thread has not copied yet.
      db.pragma(`wal_autocheckpoint = ${WAL_PAGES_BEHIND}`);
      // A WAL is restarted from its start once checkpointed, but its file keeps the size of its largest burst; cut it back.
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
      store.checkpoints = new CheckpointThread(file, options.checkpointMs!, WAL_BYTES_CROWDED, () => {
        if (db.open) db.pragma('wal_autocheckpoint = 1000');
      });
    }
    if (file !== ':memory:' && options.searchThread === true) {
      store.searches = new SearchThread({ file, specs, countCacheEntries: options.countCacheEntries ?? 1000, cacheKb: SEARCH_CACHE_KB }, {
        bounds: SEARCH_BOUNDS,
        ...(options.onSearchThread ? { onChange: options.onSearchThread } : {}),
        ...(options.searchRestartMs !== undefined ? { restartMs: options.searchRestartMs } : {}),
      });
    }
    return store;
  }

  async batch(ops: readonly WriteOp[]): Promise<boolean> {
    // better-sqlite3 runs the callback synchronously; the collection methods
    // are async only in signature, so their work is done before they return.
    let applied = true;
    const run = this.db.transaction(() => {
      for (const w of ops) {
        const c = this.collection(w.collection);
        if (w.op === 'insert') c.insertSync(w.doc, w.json);
        else if (w.op === 'replace') c.replaceSync(w.doc);
        else if (w.op === 'setFields') c.setFieldsSync(w.where, w.fields);
        else if (w.op === 'delete') c.deleteSync(w.id);
        else if (!c.replaceIfRevSync(w.doc, w.expectedRev, w.json)) {
          applied = false;
          throw new RevisionMoved();
        }
      }
      // An update or delete counted its own table's inserts before writing (collection.ts); the rest are counted here.
      this.countInserts();
    });
    try {
      // IMMEDIATE takes the write lock (waiting out the busy timeout) before the first statement, so a
      // batch never has to upgrade a read snapshot another process has since moved past, which SQLite
      // refuses at once, without waiting.
      run.immediate();
    } catch (err) {
      for (const c of this.collections.values()) c.discardInserts();
      if (err instanceof RevisionMoved) return false;
      throw storeError(err);
    }
    return applied;
  }

  async increment(collection: string, id: string, expiresAt: number, now: number): Promise<number> {
    const c = this.collection(collection);
    try {
      // IMMEDIATE: the write lock first, so two processes counting at once queue instead of failing.
      return this.db.transaction(() => {
        const count = c.incrementSync(id, expiresAt, now);
        c.countInserts();
        return count;
      }).immediate();
    } catch (err) {
      c.discardInserts();
      throw storeError(err);
    }
  }

  /** Every collection's inserts so far in this transaction, added to the counters (insert-counts.ts). */
  private countInserts(): void {
    for (const c of this.collections.values()) c.countInserts();
  }

  collection(name: string): SqliteCollection {
    const found = this.collections.get(name);
    if (!found) throw new Error(`collection ${name} is not declared by this store (declared: ${[...this.collections.keys()].join(', ')})`);
    return found;
  }

  /**
   * A reader's snapshot keeps every frame committed after it in the WAL, and the WAL can be started again only
   * once no reader needs it: beside long reads (a search sorting on an unindexed field reads every job) an archive
   * pass grew it to hundreds of MB, and every commit past WAL_PAGES_BEHIND copied pages back on the event loop.
   * Paused, the archiver lets the WAL be copied whole, so readers that start next read the database file alone, and
   * once the last older reader ends the checkpoint thread starts the WAL again and cuts its file (TRUNCATE). The WAL
   * file's size bounds the WAL's length and is current at every commit, whoever made it (wal-length.ts).
   */
  roomForBackgroundWrites(): boolean {
    // Only a live thread cuts a long WAL file back; without one the file may stay long over a short WAL for good.
    if (!this.checkpoints?.running) return true;
    return walFileBytes(this.db.name) < WAL_BYTES_CROWDED;
  }

  /**
   * Waits for background work under way (a text index's tidy) to finish rather than stopping it, as `close` does:
   * for a command that exits after its deletes (`npm run archive`), which has no event loop to spare.
   */
  async settle(): Promise<void> {
    for (const c of this.collections.values()) await c.tidyFigures();
  }

  async close(): Promise<void> {
    for (const c of this.collections.values()) await c.closeTidy();
    await this.searches?.close();
    await this.checkpoints?.close();
    if (this.db.open) this.db.close();
  }
}
