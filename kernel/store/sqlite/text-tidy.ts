/**
 * Drops a text index's deleted entries in the background, a few pages at a
 * time. Deleting a document leaves a tombstone in the FTS5 segment holding
 * its words. FTS5 would rewrite such a segment whole inside the delete that
 * pushed it past a tenth tombstones (27-37 ms on the event loop at 100,000
 * jobs); schema.ts turns that off. Without it, the tombstones of old
 * documents stay until the segments around them merge, which for the oldest
 * and largest segment may be never: an archive pass that removed most jobs
 * would leave the index its old size, and every search walking past
 * entries that match nothing.
 *
 * So once the deletes since the last tidy (counted in the store, whichever
 * process made them) reach a share of the collection, the index is merged into one segment by FTS5's incremental `merge` with a
 * negative page count (which drops tombstoned entries as it copies), one
 * small step per turn of the event loop, until a step finds nothing to do
 * (docs/archive.md, "The text index and deletions").
 */
import type { Database, Statement } from 'better-sqlite3';
import { quoteIdent } from './columns.ts';

export interface TextTidyOptions {
  /** Deletes before a tidy is considered at all. */
  readonly minDeletes: number;
  /** ...and the share of the collection's rows they must reach. */
  readonly share: number;
  /** Index pages one step writes at most: about 2 ms per 32 here. */
  readonly pagesPerStep: number;
}

export const TEXT_TIDY_DEFAULTS: TextTidyOptions = { minDeletes: 1_000, share: 0.1, pagesPerStep: 32 };

/** Steps one tidy may take, against a step that somehow keeps reporting changes. */
const MAX_STEPS = 100_000;

export class TextTidy {
  private running: Promise<void> | null = null;
  private closed = false;
  private tidies = 0;
  private lastError: string | null = null;
  private statements: { step: Statement; changes: Statement } | null = null;
  private readonly rows: Statement;
  private readonly count: Statement;
  private readonly uncount: Statement;
  private readonly collection: string;
  /** After a failed tidy, the count at which the next is tried (not at every delete). */
  private retryAt = 0;

  constructor(private readonly db: Database, collection: string, private readonly fts: string, private readonly options: TextTidyOptions = TEXT_TIDY_DEFAULTS) {
    // Deletes since the last tidy are counted in the store, in the deleting transaction: a restart, or a command
    // that archives and exits (`npm run archive` from cron), would otherwise start from nothing every time and a
    // tidy might never come.
    db.exec('CREATE TABLE IF NOT EXISTS _text_tidy (collection TEXT PRIMARY KEY, deletes INTEGER NOT NULL)');
    this.rows = db.prepare('SELECT n FROM _row_counts WHERE collection = ?').bind(collection);
    this.count = db
      .prepare('INSERT INTO _text_tidy (collection, deletes) VALUES (?, 1) ON CONFLICT (collection) DO UPDATE SET deletes = deletes + 1 RETURNING deletes')
      .bind(collection);
    this.uncount = db.prepare('UPDATE _text_tidy SET deletes = max(0, deletes - ?) WHERE collection = ?');
    this.collection = collection;
  }

  /** Counts a delete, inside its transaction (rolled back with it), and starts a tidy once enough are counted. */
  noteDelete(): void {
    const deletes = (this.count.get() as { deletes: number }).deletes;
    if (this.running || this.closed || deletes < Math.max(this.options.minDeletes, this.retryAt)) return;
    const rows = (this.rows.get() as { n: number } | undefined)?.n ?? 0;
    if (deletes < this.options.share * (rows + deletes)) return;
    this.running = this.run(deletes).finally(() => {
      this.running = null;
    });
  }

  /** Tidies done and the last step's error, if any (tests). */
  figures(): { tidies: number; lastError: string | null; running: boolean } {
    return { tidies: this.tidies, lastError: this.lastError, running: this.running !== null };
  }

  /** Resolves once a tidy under way (if any) has stopped. */
  async settled(): Promise<void> {
    await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  /** `counted`: the deletes this tidy answers for, taken off the count when it finishes (not when it is stopped). */
  private async run(counted: number): Promise<void> {
    for (let steps = 0; steps < MAX_STEPS; steps++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.closed || !this.db.open) return;
      try {
        // Prepared at the first tidy: a collection's text index may be built after the store opens.
        const table = quoteIdent(this.fts);
        this.statements ??= { step: this.db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`), changes: this.db.prepare('SELECT total_changes() AS n') };
        const { step, changes } = this.statements;
        const before = (changes.get() as { n: number }).n;
        step.run(-this.options.pagesPerStep);
        // FTS5's documented test for a finished merge: a step that wrote fewer than two rows.
        if ((changes.get() as { n: number }).n - before < 2) break;
      } catch (err) {
        // The file locked by another process past the busy timeout, full, or the index not built: tried again after
        // another `minDeletes` deletes.
        this.statements = null;
        this.lastError = err instanceof Error ? err.message : String(err);
        this.retryAt = counted + this.options.minDeletes;
        return;
      }
    }
    try {
      this.uncount.run(counted, this.collection);
    } catch (err) {
      this.lastError = err instanceof Error ? err.message : String(err);
      return;
    }
    this.tidies += 1;
    this.lastError = null;
  }
}
