/**
 * DocCollection.spans on MongoDB: one aggregation, so the server sums and no
 * document crosses the wire. The same rule as the embedded store's: a
 * document's span counts only where both ends are numbers and the end is
 * not before the start. Kept apart so a test runs the very pipeline through
 * mingo against the embedded store's answer.
 */
import type { Document } from 'mongodb';

/** Paths come from the code, never a caller; still, only plain dotted names become field references. */
const PLAIN_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function fieldRef(path: string): string {
  if (!PLAIN_PATH.test(path)) throw new Error(`not a plain field path: ${path}`);
  return `$${path}`;
}

export function spanPipeline(filter: Document, from: string, to: string): Document[] {
  const start = fieldRef(from);
  const end = fieldRef(to);
  const counted = { $and: [{ $isNumber: start }, { $isNumber: end }, { $gte: [end, start] }] };
  return [{ $match: filter }, { $group: { _id: null, count: { $sum: 1 }, total: { $sum: { $cond: [counted, { $subtract: [end, start] }, 0] } } } }];
}
