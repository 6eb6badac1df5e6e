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
 * process made them) reach a share of the collection, the store runs FTS5's
 * own remedy in the background instead: with `deletemerge` back at its
 * default for the tidy's length, FTS5's incremental `merge` rewrites the
 * segments a tenth or more tombstones (and any level holding enough segments
 * to merge anyway), dropping the tombstoned entries as it copies, one step
 * of `pagesPerStep` pages per turn of the event loop, until a step finds
 * nothing to do (docs/archive.md, "The text index and deletions"). A merge
 * into a single segment (`merge` with a negative count) was tried first: with
 * deletes still coming it restarted over and over, 28,852 steps and 92 s of
 * the event loop at 1M jobs against 119 steps and 0.5 s this way.
 *
 * While a tidy runs, FTS5's automatic merging is off: a merge under way is
 * otherwise carried on by whichever write comes next, 320-512 pages at a time
 * inside that write (40-60 ms delete batches on the event loop, measured),
 * which is the hold the tidy is there to avoid. One tidy at a time per
 * collection, claimed in the store; a tidier that died is noticed when its
 * claim expires.
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

/** How long a tidy's claim lasts; renewed as it goes, so only a tidier that died lets it expire. */
const CLAIM_MS = 30_000;

/** FTS5's own default for `automerge`, put back after a tidy. */
const AUTOMERGE = 4;

/** FTS5's own default for `deletemerge`, in force during a tidy: a segment a tenth tombstones is rewritten. */
const DELETEMERGE = 10;

export class TextTidy {
  private running: Promise<void> | null = null;
  private closed = false;
  private tidies = 0;
  private lastError: string | null = null;
  /** After a failed tidy, the count at which the next is tried (not at every delete). */
  private retryAt = 0;
  private readonly table: string;
  private readonly config: string;
  private readonly configName: string;
  private readonly sql: Record<'rows' | 'count' | 'uncount' | 'claim' | 'renew' | 'release' | 'claimedUntil', Statement>;
  /** Prepared at the first tidy: a collection's text index may be built after the store opens. */
  private fts: { step: Statement; changes: Statement; automergeOff: Statement; automergeOn: Statement; deletemergeOn: Statement; deletemergeOff: Statement; settingNow: Statement } | null = null;

  constructor(private readonly db: Database, private readonly collection: string, fts: string, private readonly options: TextTidyOptions = TEXT_TIDY_DEFAULTS) {
    this.table = quoteIdent(fts);
    this.configName = `${fts}_config`;
    this.config = quoteIdent(this.configName);
    // Deletes since the last tidy are counted in the store, in the deleting transaction: a restart, or a command
    // that archives and exits (`npm run archive` from cron), would otherwise start from nothing every time and a
    // tidy might never come. `until`: the claim of the tidy under way (epoch ms), 0 when none is.
    db.exec('CREATE TABLE IF NOT EXISTS _text_tidy (collection TEXT PRIMARY KEY, deletes INTEGER NOT NULL, until INTEGER NOT NULL DEFAULT 0)');
    this.sql = {
      rows: db.prepare('SELECT n FROM _row_counts WHERE collection = ?').bind(collection),
      count: db.prepare('INSERT INTO _text_tidy (collection, deletes) VALUES (?, 1) ON CONFLICT (collection) DO UPDATE SET deletes = deletes + 1 RETURNING deletes').bind(collection),
      uncount: db.prepare('UPDATE _text_tidy SET deletes = max(0, deletes - ?) WHERE collection = ?'),
      claim: db.prepare('INSERT INTO _text_tidy (collection, deletes, until) VALUES (?, 0, ?) ON CONFLICT (collection) DO UPDATE SET until = excluded.until WHERE until < ?'),
      renew: db.prepare('UPDATE _text_tidy SET until = ? WHERE collection = ?'),
      release: db.prepare('UPDATE _text_tidy SET until = 0 WHERE collection = ?'),
      claimedUntil: db.prepare('SELECT until FROM _text_tidy WHERE collection = ?').pluck(),
    };
    this.recover();
  }

  /** Counts a delete, inside its transaction (rolled back with it), and starts a tidy once enough are counted. */
  noteDelete(): void {
    const deletes = (this.sql.count.get() as { deletes: number }).deletes;
    if (this.running || this.closed || deletes < Math.max(this.options.minDeletes, this.retryAt)) return;
    const rows = (this.sql.rows.get() as { n: number } | undefined)?.n ?? 0;
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

  /**
   * FTS5's merging as it is between tidies (`deletemerge` 0, `automerge` 4): for a store made before the setting
   * (`deletemerge` absent, so FTS5's 10), or after a tidier died with them changed and its claim has run out.
   */
  private recover(): void {
    try {
      const statements = this.prepared();
      if (!statements) return;
      const automerge = (statements.settingNow.get('automerge') as number | undefined) ?? AUTOMERGE;
      const deletemerge = (statements.settingNow.get('deletemerge') as number | undefined) ?? DELETEMERGE;
      const until = (this.sql.claimedUntil.get(this.collection) as number | undefined) ?? 0;
      if ((automerge === 0 || deletemerge !== 0) && until < Date.now()) {
        statements.deletemergeOff.run();
        statements.automergeOn.run();
      }
    } catch {
      // Locked by another process: the next open, or the next tidy's end, puts it back.
    }
  }

  private prepared(): NonNullable<TextTidy['fts']> | null {
    if (this.fts) return this.fts;
    if (this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(this.configName) === undefined) return null;
    this.fts = {
      step: this.db.prepare(`INSERT INTO ${this.table} (${this.table}, rank) VALUES ('merge', ?)`),
      changes: this.db.prepare('SELECT total_changes() AS n').pluck(),
      // Literals: FTS5 takes a setting's value only as an integer, and a bound JavaScript number arrives as a real.
      automergeOff: this.db.prepare(`INSERT INTO ${this.table} (${this.table}, rank) VALUES ('automerge', 0)`),
      deletemergeOn: this.db.prepare(`INSERT INTO ${this.table} (${this.table}, rank) VALUES ('deletemerge', ${DELETEMERGE})`),
      deletemergeOff: this.db.prepare(`INSERT INTO ${this.table} (${this.table}, rank) VALUES ('deletemerge', 0)`),
      automergeOn: this.db.prepare(`INSERT INTO ${this.table} (${this.table}, rank) VALUES ('automerge', ${AUTOMERGE})`),
      settingNow: this.db.prepare(`SELECT v FROM ${this.config} WHERE k = ?`).pluck(),
    };
    return this.fts;
  }

  /** `counted`: the deletes this tidy answers for, taken off the count when it finishes (not when it is stopped). */
  private async run(counted: number): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.closed || !this.db.open) return;
    let statements: NonNullable<TextTidy['fts']>;
    try {
      const found = this.prepared();
      if (!found) throw new Error(`the text index ${this.table} is not built`);
      statements = found;
      // Another process tidying the same index: its tidy answers for these deletes too.
      if (this.sql.claim.run(this.collection, Date.now() + CLAIM_MS, Date.now()).changes === 0) {
        this.retryAt = counted + this.options.minDeletes;
        return;
      }
    } catch (err) {
      return this.failed(err, counted);
    }
    let finished = false;
    try {
      statements.automergeOff.run();
      statements.deletemergeOn.run();
      let renewAt = Date.now() + CLAIM_MS / 2;
      for (let steps = 0; steps < MAX_STEPS; steps++) {
        if (steps > 0) await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.closed || !this.db.open) return;
        if (Date.now() > renewAt) {
          this.sql.renew.run(Date.now() + CLAIM_MS, this.collection);
          renewAt = Date.now() + CLAIM_MS / 2;
        }
        const before = statements.changes.get() as number;
        statements.step.run(this.options.pagesPerStep);
        // FTS5's documented test for a finished merge: a step that wrote fewer than two rows.
        if ((statements.changes.get() as number) - before < 2) break;
      }
      this.sql.uncount.run(counted, this.collection);
      finished = true;
    } catch (err) {
      this.failed(err, counted);
    } finally {
      try {
        if (this.db.open) {
          statements.deletemergeOff.run();
          statements.automergeOn.run();
          this.sql.release.run(this.collection);
        }
      } catch (err) {
        // Locked by another process past the busy timeout: the claim runs out and the next open or tidy restores it.
        finished = false;
        this.lastError = err instanceof Error ? err.message : String(err);
      }
    }
    if (finished) {
      this.tidies += 1;
      this.lastError = null;
    }
  }

  /** The file locked by another process past the busy timeout, full, or the index not built: tried again after another `minDeletes` deletes. */
  private failed(err: unknown, counted: number): void {
    this.lastError = err instanceof Error ? err.message : String(err);
    this.retryAt = counted + this.options.minDeletes;
  }
}
