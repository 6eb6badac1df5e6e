/**
 * Reading one page of a collection: the page's rows in order, then their
 * documents as JSON text, with its total, in one transaction so that both
 * come from one snapshot. A query a caller shaped carries a byte budget
 * (`maxBytes`); the page's documents are measured as stored, from the length
 * SQLite keeps beside each row, before any is read, so a page of large
 * documents is refused without the memory or the time of building it. The
 * code's own walks ask for `shorten` and are given the documents that fit.
 */
import type { Database, Statement } from 'better-sqlite3';
import { PageTooLargeError } from '../../errors.ts';
import { splitText } from '../../search/conditions.ts';
import type { SearchQuery } from '../types.ts';
import type { CollectionTotals } from './collection-totals.ts';
import { jsonPath } from './columns.ts';
import type { SqlCompiler } from './compile.ts';

/** What a read needs of its collection: its connection, table, compiler, totals and statement cache. */
export interface ReadSource {
  readonly db: Database;
  readonly table: string;
  readonly compiler: SqlCompiler;
  readonly totals: CollectionTotals;
  readonly stmt: (sql: string) => Statement;
}

/**
 * Documents come back as JSON text, with `hide` removed in SQL, and are turned into what the caller wants by
 * `read`. Uncounted, the total is NaN and the page is read as if matches were few.
 */
export function readPage<T>(from: ReadSource, query: SearchQuery, hide: readonly string[], read: (json: string) => T, counted = true): { docs: T[]; total: number } {
  return from.db.transaction(() => {
    const total = counted ? from.totals.now(query.where) : Number.NaN;
    if (query.limit === 0 || query.skip >= total) return { docs: [], total };
    // CASE: with common text matches, walk the sort index and test membership
    // (cost ~ rows walked) instead of fetching and sorting every match (cost ~ matches).
    const textAsFilter = counted && splitText(query.where).text !== null && from.totals.preferIndexWalk(total, query.skip + query.limit);
    const where = from.compiler.where(query.where, { textAsFilter });
    const order = from.compiler.orderBy(query.sort);
    const pageSql = `SELECT t.seq AS seq FROM ${from.table} AS t WHERE ${where.sql}${order ? ` ORDER BY ${order}` : ''} LIMIT ? OFFSET ?`;
    let seqs = (from.stmt(pageSql).all(...where.params, query.limit, query.skip) as Array<{ seq: number }>).map((r) => r.seq);
    const seqsJson = JSON.stringify(seqs);
    // One document always fits: the budget is never below the largest document a store keeps (config/keys.ts).
    const budget = query.maxBytes !== undefined && seqs.length > 1 ? query.maxBytes : null;
    let rows = documents(from, seqsJson, hide, budget);
    // No rows for a page of rows: past the budget as stored. Refused, or shortened to what fits, unless what the
    // answer hides brings it within.
    if (budget !== null && rows.length === 0) {
      const fits = fitting(from, seqs, hide, budget);
      if (fits < seqs.length && !query.shorten) throw new PageTooLargeError(budget, fits);
      if (fits < seqs.length) seqs = seqs.slice(0, Math.max(1, fits));
      rows = documents(from, JSON.stringify(seqs), hide, null);
    }
    const bySeq = new Map(rows.map((r) => [r.seq, r.doc]));
    return { docs: seqs.map((s) => read(bySeq.get(s)!)), total };
  })();
}

/**
 * The page's documents as JSON text, without `hide`. With a budget, the statement first sums the rows' stored
 * lengths and answers no rows past it, so no document is printed for a page that will be refused, and a page
 * within it costs no second statement.
 */
function documents(from: ReadSource, seqsJson: string, hide: readonly string[], budget: number | null): Array<{ seq: number; doc: string }> {
  // json_remove already answers text: wrapping it in json() would parse and print each document a second time (~0.3 ms a page of 100).
  const text = hide.length > 0 ? `json_remove(doc${hide.map(() => ', ?').join('')})` : 'json(doc)';
  const page = `seq IN (SELECT value FROM json_each(@seqs))`;
  const within = budget === null ? '' : ` AND (SELECT total(length(doc)) FROM ${from.table} WHERE ${page}) <= @budget`;
  const named = budget === null ? { seqs: seqsJson } : { seqs: seqsJson, budget };
  return from.stmt(`SELECT seq, ${text} AS doc FROM ${from.table} WHERE ${page}${within}`).all(...hide.map(jsonPath), named) as Array<{ seq: number; doc: string }>;
}

/**
 * How many of the page's first documents fit the budget, in stored (JSONB) bytes; all of them when the page is
 * within it once the fields the answer hides are left out, so a caller who excludes a large field is not refused
 * for it. `length()` of a blob reads the row's header, not the document.
 */
function fitting(from: ReadSource, seqs: readonly number[], hide: readonly string[], maxBytes: number): number {
  const sizes = storedSizes(from, seqs, hide.length > 0 ? `length(jsonb_remove(doc${hide.map(() => ', ?').join('')}))` : 'length(doc)', hide.map(jsonPath));
  let fits = 0;
  let used = 0;
  for (const n of sizes) {
    if (used + n > maxBytes) break;
    used += n;
    fits += 1;
  }
  return fits;
}

function storedSizes(from: ReadSource, seqs: readonly number[], size: string, params: readonly string[]): number[] {
  const rows = from.stmt(`SELECT seq, ${size} AS n FROM ${from.table} WHERE seq IN (SELECT value FROM json_each(?))`).all(...params, JSON.stringify(seqs)) as Array<{ seq: number; n: number }>;
  const bySeq = new Map(rows.map((r) => [r.seq, r.n]));
  return seqs.map((s) => bySeq.get(s) ?? 0);
}
