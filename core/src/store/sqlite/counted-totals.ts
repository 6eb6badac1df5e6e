/**
 * Exact totals from the value counters (counters.ts) for the query shapes
 * they cover; null for every other shape, which is then counted from the
 * index as before. Covered (docs/search.md, "How totals are computed"):
 * - one condition on a field counted per value: `equals`, `in`, a comparison,
 *   or `starts-with` (a range over the values);
 * - a range with both ends on a field counted per interval: the whole
 *   intervals inside it are summed, the partial ones at its edges counted
 *   from the index.
 * Anything else (two fields at once, `not`, `or`, text search, the group
 * visibility condition of a caller who is not an administrator) is not.
 * Reads run in the caller's transaction, so counters and page share a snapshot.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { CompareOp, Condition } from '../../search/conditions.ts';
import type { FieldDef } from '../../search/fields.ts';
import type { Scalar } from '../../search/values.ts';
import type { CollectionName } from '../collections.ts';
import { prefixUpperBound } from './compile.ts';
import type { SqlCompiler, SqlParam } from './compile.ts';
import { BUCKET_LIMIT, bucketKey, COUNTED, countersReady } from './counters.ts';
import type { CounterSpec } from './counters.ts';

type Compare = Extract<Condition, { kind: 'compare' }>;
interface Bound {
  readonly value: number;
  readonly inclusive: boolean;
}

const BUCKET_OP: Record<CompareOp, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

function param(value: Scalar): SqlParam {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

export class CountedTotals {
  private readonly spec: CounterSpec | null;
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly collection: CollectionName,
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
    return this.rangeCount(range!.field, range!.lower, range!.upper, this.spec.intervals);
  }

  private exactShape(c: Condition): { path: string; sql: string; params: SqlParam[] } | null {
    if (c.kind !== 'compare' && c.kind !== 'in' && c.kind !== 'match') return null;
    if (c.field.array || !this.spec!.exact.includes(c.field.path)) return null;
    // A number field is compared as REAL by the compiler; only text-like fields are counted per value.
    if (c.field.type === 'number') return null;
    if (c.kind === 'compare') return { path: c.field.path, sql: `bucket ${BUCKET_OP[c.op]} ?`, params: [param(c.value)] };
    if (c.kind === 'in') return { path: c.field.path, sql: `bucket IN (${c.values.map(() => '?').join(', ')})`, params: c.values.map(param) };
    if (c.mode !== 'prefix') return null;
    const upper = prefixUpperBound(c.text);
    return upper === null ? { path: c.field.path, sql: 'bucket >= ?', params: [c.text] } : { path: c.field.path, sql: 'bucket >= ? AND bucket < ?', params: [c.text, upper] };
  }

  private rangeShape(c: Condition): { field: FieldDef; lower: Bound; upper: Bound } | null {
    if (c.kind !== 'and' || c.items.length !== 2) return null;
    const [a, b] = c.items as [Condition, Condition];
    if (a.kind !== 'compare' || b.kind !== 'compare' || a.field.path !== b.field.path) return null;
    const field = a.field;
    if (field.array || field.type === 'number' || !this.spec!.epoch.includes(field.path)) return null;
    const lowerOf = (x: Compare): Bound | null => (x.op === 'gt' || x.op === 'gte') && this.bounded(x.value) ? { value: x.value as number, inclusive: x.op === 'gte' } : null;
    const upperOf = (x: Compare): Bound | null => (x.op === 'lt' || x.op === 'lte') && this.bounded(x.value) ? { value: x.value as number, inclusive: x.op === 'lte' } : null;
    const lower = lowerOf(a) ?? lowerOf(b);
    const upper = upperOf(a) ?? upperOf(b);
    // With one end open, text values (which SQLite orders after numbers) could match: counted from the index.
    return lower && upper ? { field, lower, upper } : null;
  }

  private bounded(value: Scalar): boolean {
    return typeof value === 'number' && Number.isFinite(value) && Math.abs(value) < BUCKET_LIMIT;
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

  private indexCount(field: FieldDef, lower: Bound, upper: Bound): number {
    if (lower.value > upper.value || (lower.value === upper.value && !(lower.inclusive && upper.inclusive))) return 0;
    const where = this.compiler.where({
      kind: 'and',
      items: [
        { kind: 'compare', op: lower.inclusive ? 'gte' : 'gt', field, value: lower.value },
        { kind: 'compare', op: upper.inclusive ? 'lte' : 'lt', field, value: upper.value },
      ],
    });
    return (this.stmt(`SELECT count(*) AS n FROM ${this.table} AS t WHERE ${where.sql}`).get(...where.params) as { n: number }).n;
  }
}
