/**
 * Value counters of the embedded store: for the fields most searches filter
 * on, the number of documents per value (status, name) or per time interval
 * (day, hour, minute and second of `metrics.start_time`), so an exact search total is a sum
 * of a few rows instead of a walk over tens of thousands of index entries
 * (docs/search.md, "How totals are computed").
 *
 * They are kept in the writing transaction: by triggers for deletes and
 * updates, whichever code path makes them (retention deletes, another core
 * on the same file), and for inserts by the store's writer once per
 * transaction (insert-counts.ts): every insert goes through SqliteCollection.
 * A store written before the counters existed, or with other counted
 * fields, is back-filled at open in batches of rows by `seq`: triggers count
 * only rows at or below the back-fill mark (`upto`), and each batch counts the
 * rows just above it and moves the mark in one transaction, so writes between
 * batches are counted exactly once. The counters serve totals only once the
 * mark has passed every row.
 */
import type { Database } from 'better-sqlite3';
import { columnName, ensureTrigger, quoteIdent, quoteText } from './columns.ts';

/** The mark once every row is counted: every write is counted from then on. */
export const ALL_ROWS = 9223372036854775807n;
const SECOND = 1000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
/**
 * Down to the second: recent history is dense (a burst of starts can put tens
 * of thousands of jobs in one minute), and the stretches at a range's edges
 * that no whole interval covers are counted from the index.
 */
const INTERVALS = [DAY, HOUR, MINUTE, SECOND];
/** Time buckets only hold values below this magnitude, where the arithmetic on both sides is exact. */
export const BUCKET_LIMIT = 2 ** 50;

export interface CounterSpec {
  /** Fields counted per exact value: low-cardinality fields searched by equality, `in` or prefix. */
  readonly exact: readonly string[];
  /** Epoch-millisecond fields counted per interval; widest interval first. */
  readonly epoch: readonly string[];
  readonly intervals: readonly number[];
}

export const COUNTED: Readonly<Record<string, CounterSpec | undefined>> = {
  jobs: { exact: ['status', 'name'], epoch: ['metrics.start_time'], intervals: INTERVALS },
  tasks: { exact: ['status', 'name'], epoch: ['metrics.start_time'], intervals: INTERVALS },
};

/** Key of a counted field in `_value_counts.field`: the path, or the path and its interval. */
export function bucketKey(path: string, interval?: number): string {
  return interval === undefined ? path : `${path}@${interval}`;
}

/**
 * floor(value / interval) for numbers below BUCKET_LIMIT, NULL otherwise:
 * integer arithmetic for integers; for reals the division is rounded, so the
 * result is corrected to the interval that really holds the value.
 */
function bucketExpr(column: string, interval: number): string {
  const h = `floor(${column} / ${interval}.0)`;
  return `CASE
    WHEN typeof(${column}) = 'integer' AND abs(${column}) < ${BUCKET_LIMIT} THEN (${column} - ((${column} % ${interval}) + ${interval}) % ${interval}) / ${interval}
    WHEN typeof(${column}) = 'real' AND abs(${column}) < ${BUCKET_LIMIT} THEN CAST(${h} AS INTEGER) - (${column} < ${h} * ${interval}) + (${column} >= (${h} + 1) * ${interval})
  END`;
}

/** `(field key, bucket)` pairs of a row, as a SELECT over the row alias given (`from` names its source, if any). */
function pairs(spec: CounterSpec, row: string, from = ''): string {
  const parts: string[] = [];
  for (const path of spec.exact) parts.push(`SELECT '${bucketKey(path)}' AS k, ${row}.${quoteIdent(columnName(path))} AS v ${from}`);
  for (const path of spec.epoch) {
    for (const interval of spec.intervals) parts.push(`SELECT '${bucketKey(path, interval)}' AS k, ${bucketExpr(`${row}.${quoteIdent(columnName(path))}`, interval)} AS v ${from}`);
  }
  return parts.join(' UNION ALL ');
}

/** The columns the counters read, for reading each row once. */
function countedColumns(spec: CounterSpec): string {
  return [...spec.exact, ...spec.epoch].map((p) => quoteIdent(columnName(p))).join(', ');
}

const TRIGGERS = ['ad', 'au'] as const;
/** The per-row insert trigger of earlier versions, dropped at open: inserts are counted per transaction now. */
const OLD_INSERT_TRIGGER = 'ai';

function triggerName(collection: string, suffix: string): string {
  return quoteIdent(`${collection}__values_${suffix}`);
}

/** The delete and update triggers of a collection's counters, as CREATE statements: the same text every time. */
function triggerSql(collection: string, spec: CounterSpec): Record<(typeof TRIGGERS)[number], string> {
  const table = quoteIdent(collection);
  const coll = quoteText(collection);
  const counted = (row: string): string => `${row}.seq <= (SELECT upto FROM _counter_state WHERE coll = ${coll})`;
  const remove = (only: string): string => {
    const removed = `(field, bucket) IN (SELECT k, v FROM (${pairs(spec, 'old')}) WHERE ${only})`;
    return `UPDATE _value_counts SET n = n - 1 WHERE coll = ${coll} AND ${removed};
    DELETE FROM _value_counts WHERE coll = ${coll} AND n = 0 AND ${removed};`;
  };
  // Every bucket is a function of its column, so a row whose counted columns are all unchanged keeps its buckets:
  // most updates (a job's progress, a task's groups) change none, and need not build and compare them.
  const changed = [...spec.exact, ...spec.epoch].map((p) => `old.${quoteIdent(columnName(p))} IS NOT new.${quoteIdent(columnName(p))}`).join(' OR ');
  return {
    ad: `CREATE TRIGGER ${triggerName(collection, 'ad')} AFTER DELETE ON ${table} WHEN ${counted('old')} BEGIN ${remove('true')} END`,
    // An update moves a row from its old values to its new ones; unchanged values stay put.
    au: `CREATE TRIGGER ${triggerName(collection, 'au')} AFTER UPDATE OF doc ON ${table} WHEN ${counted('old')} AND (${changed}) BEGIN
    ${remove(`v IS NOT NULL AND (k, v) NOT IN (SELECT k, v FROM (${pairs(spec, 'new')}) WHERE v IS NOT NULL)`)}
    INSERT INTO _value_counts (coll, field, bucket, n)
      SELECT ${coll}, k, v, 1 FROM (${pairs(spec, 'new')}) WHERE v IS NOT NULL AND (k, v) NOT IN (SELECT k, v FROM (${pairs(spec, 'old')}) WHERE v IS NOT NULL)
      ON CONFLICT (coll, field, bucket) DO UPDATE SET n = n + 1;
  END`,
  };
}

/**
 * Creates the triggers that are missing and replaces those of an earlier version (the update trigger without its
 * test for changed columns); both versions keep the same counts, so the counts stay as they are.
 */
function writeTriggers(db: Database, collection: string, spec: CounterSpec): void {
  const sql = triggerSql(collection, spec);
  for (const suffix of TRIGGERS) ensureTrigger(db, `${collection}__values_${suffix}`, sql[suffix]);
}

/**
 * Creates the counter tables and triggers of a collection, or resets them when
 * the counted fields changed. Run inside the store's opening transaction; the
 * back-fill itself runs after, in its own transactions.
 */
export function ensureValueCounters(db: Database, collection: string): void {
  const spec = COUNTED[collection];
  if (!spec) return;
  db.exec(`CREATE TABLE IF NOT EXISTS _value_counts (coll TEXT NOT NULL, field TEXT NOT NULL, bucket NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (coll, field, bucket)) WITHOUT ROWID`);
  db.exec(`CREATE TABLE IF NOT EXISTS _counter_state (coll TEXT PRIMARY KEY, upto INTEGER NOT NULL, spec TEXT NOT NULL)`);
  const wanted = JSON.stringify(spec);
  const state = db.prepare(`SELECT spec FROM _counter_state WHERE coll = ?`).get(collection) as { spec: string } | undefined;
  const names = TRIGGERS.map((s) => `${collection}__values_${s}`);
  const present = (db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name IN (SELECT value FROM json_each(?))`).get(JSON.stringify(names)) as { n: number }).n;
  // Counts so far are exact either way: the old trigger counted every insert up to this transaction.
  db.exec(`DROP TRIGGER IF EXISTS ${triggerName(collection, OLD_INSERT_TRIGGER)}`);
  if (state?.spec === wanted && present === TRIGGERS.length) {
    writeTriggers(db, collection, spec);
    return;
  }
  for (const suffix of TRIGGERS) db.exec(`DROP TRIGGER IF EXISTS ${triggerName(collection, suffix)}`);
  db.prepare(`DELETE FROM _value_counts WHERE coll = ?`).run(collection);
  db.prepare(`INSERT OR REPLACE INTO _counter_state (coll, upto, spec) VALUES (?, 0, ?)`).run(collection, wanted);
  writeTriggers(db, collection, spec);
}

/** Rows above `seq` and at or below the back-fill mark, grouped per counter and added: counted as one batch. */
function countRowsAbove(spec: CounterSpec, table: string, upto: string): string {
  return `WITH r AS MATERIALIZED (SELECT ${countedColumns(spec)} FROM ${table} WHERE seq > ? AND seq <= ${upto})
      INSERT INTO _value_counts (coll, field, bucket, n)
      SELECT ?, k, v, count(*) FROM (${pairs(spec, 'r', 'FROM r')}) WHERE v IS NOT NULL GROUP BY k, v
      ON CONFLICT (coll, field, bucket) DO UPDATE SET n = n + excluded.n`;
}

/**
 * The statement that counts the rows a transaction inserted, all above the
 * `seq` it is given (insert-counts.ts), at or below the back-fill mark as
 * deletes and updates are; parameters: that `seq`, then the collection.
 * Null for a collection without counters.
 */
export function insertedValuesSql(collection: string): string | null {
  const spec = COUNTED[collection];
  if (!spec) return null;
  return countRowsAbove(spec, quoteIdent(collection), `(SELECT upto FROM _counter_state WHERE coll = ${quoteText(collection)})`);
}

/**
 * Counts one batch of not-yet-counted rows and moves the mark past them, in
 * one write transaction. Answers true once every row is counted.
 */
export function backfillBatch(db: Database, collection: string, rows: number): boolean {
  const spec = COUNTED[collection];
  if (!spec) return true;
  const table = quoteIdent(collection);
  const step = db.transaction((): boolean => {
    const state = db.prepare(`SELECT upto FROM _counter_state WHERE coll = ?`).safeIntegers().get(collection) as { upto: bigint };
    if (state.upto >= ALL_ROWS) return true;
    const from = state.upto;
    const to = from + BigInt(rows);
    const last = (db.prepare(`SELECT max(seq) AS m FROM ${table}`).safeIntegers().get() as { m: bigint | null }).m ?? 0n;
    db.prepare(countRowsAbove(spec, table, '?')).run(from, to, collection);
    const done = to >= last;
    db.prepare(`UPDATE _counter_state SET upto = ? WHERE coll = ?`).run(done ? ALL_ROWS : to, collection);
    return done;
  });
  return step.immediate();
}

/** Back-fills every collection with counters, batch by batch; a no-op on a store already counted. */
export function backfillAll(db: Database, collections: readonly string[], rows: number): void {
  for (const name of collections) {
    while (!backfillBatch(db, name, rows)) {
      // Each batch commits on its own, so other processes can write between batches.
    }
  }
}

/** True when the counters of a collection count every row; read inside the caller's transaction. */
export function countersReady(db: Database, collection: string): boolean {
  const row = db.prepare(`SELECT upto FROM _counter_state WHERE coll = ?`).safeIntegers().get(collection) as { upto: bigint } | undefined;
  return row !== undefined && row.upto >= ALL_ROWS;
}
