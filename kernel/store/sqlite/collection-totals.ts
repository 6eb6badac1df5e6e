/**
 * What a collection knows of its totals: the exact row count, the value
 * counters (counted-totals.ts), one-word text totals, the counts a read has
 * remembered, the inserts its writer counts once per transaction
 * (insert-counts.ts), and the change mark readers keep their copies by. Every
 * write through this connection tells it (`changed`), and the counts it
 * remembers are also dropped when another connection commits, so nothing
 * remembered outlives a write.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Condition } from '../../search/conditions.ts';
import { CountCache } from './count-cache.ts';
import { CountedTotals } from './counted-totals.ts';
import { InsertCounts } from './insert-counts.ts';
import { TextTotals } from './text-totals.ts';
import type { SqlCompiler } from './compile.ts';

export class CollectionTotals {
  private readonly counts: CountCache;
  private readonly counted: CountedTotals;
  private readonly inserts: InsertCounts;
  /** Only for a collection with a text index. */
  private readonly textTotals: TextTotals | null;
  private readonly rowCount: Statement;
  /** Only for a collection whose readers keep copies (schema.ts, `ensureChangeMark`). */
  private readonly mark: Statement | null;

  constructor(
    private readonly db: Database,
    name: string,
    private readonly table: string,
    private readonly compiler: SqlCompiler,
    private readonly stmt: (sql: string) => Statement,
    options: { readonly countCacheEntries: number; readonly text: boolean; readonly changeMarked: boolean },
  ) {
    this.counts = new CountCache(db, options.countCacheEntries);
    this.counted = new CountedTotals(db, name, compiler, table);
    this.inserts = new InsertCounts(db, name);
    this.textTotals = options.text ? new TextTotals(db, name) : null;
    this.rowCount = db.prepare('SELECT n FROM _row_counts WHERE collection = ?').bind(name);
    this.mark = options.changeMarked ? db.prepare('SELECT n FROM _change_marks WHERE collection = ?').pluck().bind(name) : null;
  }

  /** Every write calls it before writing: totals kept are dropped. */
  changed(): void {
    this.counts.clear();
  }

  /** Null for a collection without a mark: nothing read from it may be kept. */
  changeMark(): string | null {
    return this.mark === null ? null : String(this.mark.get());
  }

  /** Before each insert, inside the writing transaction. */
  noteInsert(): void {
    this.inserts.note();
  }

  /**
   * Adds the rows inserted since the last call to the counters. Every writer calls it inside its transaction,
   * after its inserts and before any other write; `discardInserts` when the transaction fails.
   */
  countInserts(): void {
    this.inserts.flush();
  }

  discardInserts(): void {
    this.inserts.discard();
  }

  /** The exact total of `where`, inside the caller's read transaction. */
  now(where: Condition | null): number {
    if (where === null) return (this.rowCount.get() as { n: number }).n;
    const counted = this.counted.count(where) ?? this.textTotals?.count(where) ?? null;
    if (counted !== null) return counted;
    const textOnly = this.compiler.textOnlyCount(where);
    const w = textOnly ?? this.compiler.where(where);
    const sql = textOnly ? textOnly.sql : `SELECT count(*) AS n FROM ${this.table} AS t WHERE ${w.sql}`;
    return this.counts.get(sql, w.params, () => (this.stmt(sql).get(...w.params) as { n: number }).n);
  }

  /** The total from the value counters, or null when the query's shape is not covered (for tests and metrics). */
  counter(where: Condition | null): number | null {
    return this.db.transaction(() => this.counted.count(where))();
  }

  /** Estimated from the row counter; only used to choose a plan. */
  preferIndexWalk(matches: number, wanted: number): boolean {
    const rows = this.now(null);
    // Walking an index entry costs about a fortieth of fetching a row.
    return matches > 0 && (wanted * rows) / matches / 40 < matches;
  }
}
