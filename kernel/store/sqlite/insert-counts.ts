/**
 * The counters' share of inserts, made once per write transaction instead of
 * once per row. A row-level insert trigger updated the row count and up to
 * six value counters for every row, about a third of what writing a task row
 * cost the engine (BENCHMARKS.md, "The engine toward 1,000 jobs a second");
 * a batch of 200 task rows touches a handful of distinct counters. Deletes and
 * updates keep their triggers (schema.ts, counters.ts), which are rare on
 * the engine's path and whose old values only SQLite has at hand.
 *
 * The writer notes each insert before it runs and counts at the end of its
 * transaction, before any update or delete of the same transaction could
 * touch a row not yet counted: every row above the mark taken before the
 * first insert is one this transaction inserted (a table's new `seq` is one
 * above its largest), counted by the same SQL the back-fill uses, and only
 * at or below the back-fill mark, as the triggers did (counters.ts).
 */
import type { Database, Statement } from 'better-sqlite3';
import { insertedValuesSql } from './counters.ts';
import { quoteIdent } from './columns.ts';

export class InsertCounts {
  /** The largest `seq` before this transaction's first insert; null when none is pending. */
  private after: bigint | null = null;
  private rows = 0;
  private readonly last: Statement;
  private readonly rowCount: Statement;
  private readonly values: Statement | null;

  constructor(db: Database, private readonly collection: string) {
    this.last = db.prepare(`SELECT max(seq) AS m FROM ${quoteIdent(collection)}`).pluck().safeIntegers();
    this.rowCount = db.prepare(`UPDATE _row_counts SET n = n + ? WHERE collection = ?`);
    const values = insertedValuesSql(collection);
    this.values = values === null ? null : db.prepare(values);
  }

  /** Before each insert, inside the writing transaction. */
  note(): void {
    if (this.after === null) this.after = (this.last.get() as bigint | null) ?? 0n;
    this.rows += 1;
  }

  /** Counts what was noted; inside the same transaction, before it commits and before any other write to the table. */
  flush(): void {
    if (this.after === null) return;
    const after = this.after;
    const rows = this.rows;
    this.discard();
    this.rowCount.run(rows, this.collection);
    this.values?.run(after, this.collection);
  }

  /** The transaction was rolled back: nothing noted was written. */
  discard(): void {
    this.after = null;
    this.rows = 0;
  }
}
