/**
 * What the legacy platform answered, computed with mingo (MongoDB's query
 * language in JavaScript) from the same documents the store holds:
 * `find(filter, projection).sort().skip().limit()`. Where MongoDB leaves the
 * order of equal sort values open, the gateway's documented order decides
 * (docs/gateway.md): the caller's sort, else by `name`, then `_id` in the
 * first key's direction.
 */
import { Query } from 'mingo';
import type { Doc } from './documents.ts';
import type { SortKeys } from './legacy-options.ts';

export interface Page {
  readonly sort: SortKeys;
  readonly skip?: number | undefined;
  readonly limit?: number | undefined;
  readonly projection?: Doc | undefined;
}

/** The sort MongoDB ran, with the tie-break the gateway documents. */
export function totalOrder(keys: SortKeys): Doc {
  const given: Array<readonly [string, 1 | -1]> = keys.length > 0 ? [...keys] : [['name', 1]];
  const cut = given.findIndex(([f]) => f === '_id');
  const used = cut === -1 ? [...given, ['_id', given[0]![1]] as const] : given.slice(0, cut + 1);
  return Object.fromEntries(used);
}

export function mongoFind(docs: readonly Doc[], filter: Doc, page: Page): Doc[] {
  let cursor = new Query(filter).find(structuredClone(docs as Doc[]), page.projection && Object.keys(page.projection).length > 0 ? page.projection : undefined);
  cursor = cursor.sort(totalOrder(page.sort) as Record<string, 1 | -1>);
  if (page.skip) cursor = cursor.skip(page.skip);
  if (page.limit) cursor = cursor.limit(Math.abs(page.limit));
  return cursor.all() as Doc[];
}

export function mongoCount(docs: readonly Doc[], filter: Doc): number {
  return new Query(filter).find(docs as Doc[]).all().length;
}

/** The legacy results wrapper: the page, the caller's skip and limit (0: none), and every match. */
export function wrapper(docs: readonly Doc[], filter: Doc, page: Page): Doc {
  return { results: mongoFind(docs, filter, page), skip: page.skip ?? 0, limit: Math.abs(page.limit ?? 0), total: mongoCount(docs, filter) };
}

/** A projection applied to documents already found (an operation's own fixed fields). */
export function projectAll(docs: readonly Doc[], projection: Doc): Doc[] {
  return new Query({}).find(docs as Doc[], projection).all() as Doc[];
}
