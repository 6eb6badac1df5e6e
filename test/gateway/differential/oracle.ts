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

/**
 * A `$regex` as MongoDB runs it. MongoDB uses PCRE, where `$` (without the
 * `m` option) matches at the end and also just before a final newline;
 * mingo uses JavaScript's RegExp, where it matches only at the end. Every
 * unescaped `$` outside a character class becomes `(?=\n?$)`, so the oracle
 * matches `"Beta\n"` with `^Beta$` as the legacy platform did.
 */
function pcreDollar(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i += 1) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      out += ch + (pattern[i + 1] ?? '');
      i += 1;
    } else if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
    } else if (ch === '[') {
      inClass = true;
      out += ch;
    } else out += ch === '$' ? '(?=\n?$)' : ch;
  }
  return out;
}

/** The filter with each string `$regex` compiled the way MongoDB reads it. */
function asMongo(filter: unknown): unknown {
  if (Array.isArray(filter)) return filter.map(asMongo);
  if (filter === null || typeof filter !== 'object') return filter;
  const o = filter as Doc;
  if (typeof o['$regex'] === 'string') {
    const options = typeof o['$options'] === 'string' ? o['$options'] : '';
    const rest = Object.fromEntries(Object.entries(o).filter(([k]) => k !== '$regex' && k !== '$options').map(([k, v]) => [k, asMongo(v)]));
    return { ...rest, $regex: new RegExp(options.includes('m') ? o['$regex'] : pcreDollar(o['$regex']), options) };
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, asMongo(v)]));
}

/** A mingo query with MongoDB's reading of the filter (see asMongo). */
export function mongoQuery(filter: Doc): Query {
  return new Query(asMongo(filter) as Doc);
}

export function mongoFind(docs: readonly Doc[], filter: Doc, page: Page): Doc[] {
  let cursor = mongoQuery(filter).find(structuredClone(docs as Doc[]), page.projection && Object.keys(page.projection).length > 0 ? page.projection : undefined);
  cursor = cursor.sort(totalOrder(page.sort) as Record<string, 1 | -1>);
  if (page.skip) cursor = cursor.skip(page.skip);
  if (page.limit) cursor = cursor.limit(Math.abs(page.limit));
  return cursor.all() as Doc[];
}

export function mongoCount(docs: readonly Doc[], filter: Doc): number {
  return mongoQuery(filter).find(docs as Doc[]).all().length;
}

/** The legacy results wrapper: the page, the caller's skip and limit (0: none), and every match. */
export function wrapper(docs: readonly Doc[], filter: Doc, page: Page): Doc {
  return { results: mongoFind(docs, filter, page), skip: page.skip ?? 0, limit: Math.abs(page.limit ?? 0), total: mongoCount(docs, filter) };
}

/** A projection applied to documents already found (an operation's own fixed fields). */
export function projectAll(docs: readonly Doc[], projection: Doc): Doc[] {
  return new Query({}).find(docs as Doc[], projection).all() as Doc[];
}
