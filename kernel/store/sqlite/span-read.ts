/**
 * How many documents a condition selects and the sum of `to - from` over
 * them, in one statement: the workflow engine's run-time metrics without a
 * document leaving SQLite. Only numbers count, and only spans that do not run
 * backwards, as the MongoDB store's pipeline counts them (mongo/spans.ts).
 */
import type { Condition } from '../../search/conditions.ts';
import type { SpanTotal } from '../types.ts';
import { jsonPath } from './columns.ts';
import type { ReadSource } from './page-read.ts';
import { storeError } from './store-errors.ts';

export function readSpans(source: ReadSource, where: Condition | null, from: string, to: string): SpanTotal {
  const w = source.compiler.where(where);
  // json_type, not typeof: JSON true and false are integers to json_extract, and are not numbers.
  const number = "json_type(t.doc, ?) IN ('integer', 'real')";
  const span = `CASE WHEN ${number} AND ${number} AND json_extract(t.doc, ?) >= json_extract(t.doc, ?) THEN json_extract(t.doc, ?) - json_extract(t.doc, ?) END`;
  try {
    const paths = [from, to, to, from, to, from].map(jsonPath);
    const row = source.stmt(`SELECT count(*) AS count, total(${span}) AS total FROM ${source.table} AS t WHERE ${w.sql}`).get(...paths, ...w.params) as SpanTotal;
    return { count: row.count, total: row.total };
  } catch (err) {
    throw storeError(err);
  }
}
