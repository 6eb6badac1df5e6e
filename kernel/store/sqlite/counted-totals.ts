/**
 * Exact totals from the value counters (counters.ts) for the query shapes
 * they cover; null for every other shape, which is then counted from the
 * index as before. Covered (docs/search.md, "How totals are computed"):
 * - one condition on a field counted per value: `equals`, `in`, a comparison,
 *   or `starts-with` (a range over the values);
 * - a range (one end or both) on a field counted per interval: the whole
 *   intervals inside it are summed, the partial ones at its edges counted
 *   from the index.
 * Anything else (two fields at once, `not`, `or`, text search, the group
 * visibility condition of a caller who is not an administrator) is not.
 * Reads run in the caller's transaction, so counters and page share a snapshot.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Condition } from '../../search/conditions.ts';
import type { FieldDef } from '../../search/fields.ts';
import type { SqlCompiler, SqlParam } from './compile.ts';
import { BUCKET_LIMIT, bucketKey, COUNTED, countersReady } from './counters.ts';
import type { CounterSpec } from './counters.ts';

interface Bound {
  readonly value: number;
  readonly inclusive: boolean;
}

export class CountedTotals {
  private readonly spec: CounterSpec | null;
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly collection: string,
    private readonly compiler: SqlCompiler,
    private readonly table: string,
  ) {
    this.spec = COUNTED[collection] ?? null;
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** The exact total from the counters, or null when the query's shape is not covered. */
  count(where: Condition | null): number | null {
    if (!this.spec || !where) return null;
    const exact = this.exactShape(where);
    const range = exact ? null : this.rangeShape(where);
    if (!exact && !range) return null;
    // Counters still being back-filled (an upgraded store, just opened) count nothing yet.
    if (!countersReady(this.db, this.collection)) return null;
    if (exact) return this.sum(bucketKey(exact.path), exact.sql, exact.params);
    const { field, lower, upper } = range!;
    // An open end reaches past the numbers kept in intervals (|value| < 2^50): those few are counted from the index.
    const outside = (lower ? 0 : this.indexCount(field, null, { value: -BUCKET_LIMIT, inclusive: false }))
      + (upper ? 0 : this.indexCount(field, { value: BUCKET_LIMIT, inclusive: true }, null));
    const lo = lower ?? { value: -BUCKET_LIMIT, inclusive: true };
    const hi = upper ?? { value: BUCKET_LIMIT, inclusive: false };
    return outside + this.rangeCount(field, lo, hi, this.spec.intervals);
  }

  private exactShape(c: Condition): { path: string; sql: string; params: SqlParam[] } | null {
    if (c.kind !== 'compare' && c.kind !== 'in' && c.kind !== 'match') return null;
    if (c.field.array || !this.spec!.exact.includes(c.field.path)) return null;
    // A number field is compared as REAL by the compiler; only text-like fields are counted per value.
    if (c.field.type === 'number' || (c.kind === 'match' && c.mode !== 'prefix')) return null;
    const predicate = this.compiler.scalarOn(c, 'bucket');
    return { path: c.field.path, sql: predicate.sql, params: predicate.params };
  }

  /** One or two comparisons (`gt`/`gte`, `lt`/`lte`) with numbers on one field counted per interval; an open end is null. */
  private rangeShape(c: Condition): { field: FieldDef; lower: Bound | null; upper: Bound | null } | null {
    const items = c.kind === 'and' ? c.items : [c];
    if (items.length > 2) return null;
    let field: FieldDef | null = null;
    let lower: Bound | null = null;
    let upper: Bound | null = null;
    for (const x of items) {
      if (x.kind !== 'compare' || typeof x.value !== 'number' || !(Math.abs(x.value) < BUCKET_LIMIT)) return null;
      if (field && field.path !== x.field.path) return null;
      field = x.field;
      const bound = { value: x.value, inclusive: x.op === 'gte' || x.op === 'lte' };
      if ((x.op === 'gt' || x.op === 'gte') && !lower) lower = bound;
      else if ((x.op === 'lt' || x.op === 'lte') && !upper) upper = bound;
      else return null;
    }
    if (!field || field.array || field.type === 'number' || !this.spec!.epoch.includes(field.path)) return null;
    return { field, lower, upper };
  }

  private sum(key: string, predicate: string, params: SqlParam[]): number {
    const sql = `SELECT coalesce(sum(n), 0) AS n FROM _value_counts WHERE coll = ? AND field = ? AND ${predicate}`;
    return (this.stmt(sql).get(this.collection, key, ...params) as { n: number }).n;
  }

  /**
   * Whole intervals of the widest size inside the range from the counters; the
   * two partial stretches at its edges by the next size down, and the last
   * partial stretches (under a second each) from the index.
   */
  private rangeCount(field: FieldDef, lower: Bound, upper: Bound, intervals: readonly number[]): number {
    const [size, ...finer] = intervals;
    if (size === undefined) return this.indexCount(field, lower, upper);
    const first = lower.inclusive ? Math.ceil(lower.value / size) : Math.floor(lower.value / size) + 1;
    const end = Math.floor(upper.value / size);
    if (first >= end) return this.rangeCount(field, lower, upper, finer);
    const whole = this.sum(bucketKey(field.path, size), 'bucket >= ? AND bucket < ?', [first, end]);
    return whole
      + this.rangeCount(field, lower, { value: first * size, inclusive: false }, finer)
      + this.rangeCount(field, { value: end * size, inclusive: true }, upper, finer);
  }

  private indexCount(field: FieldDef, lower: Bound | null, upper: Bound | null): number {
    if (lower && upper && (lower.value > upper.value || (lower.value === upper.value && !(lower.inclusive && upper.inclusive)))) return 0;
    const items: Condition[] = [];
    if (lower) items.push({ kind: 'compare', op: lower.inclusive ? 'gte' : 'gt', field, value: lower.value });
    if (upper) items.push({ kind: 'compare', op: upper.inclusive ? 'lte' : 'lt', field, value: upper.value });
    const where = this.compiler.where({ kind: 'and', items });
    return (this.stmt(`SELECT count(*) AS n FROM ${this.table} AS t WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
  }
}
