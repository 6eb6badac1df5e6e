/**
 * A legacy job or task search served by the new search with MongoDB's
 * semantics (docs/gateway.md, "Legacy searches"): the query translated
 * exactly or refused, the sort given to the core or refused, pages read
 * as the upstream answers them (pages.ts) until the legacy `limit` (or every
 * document) is served, and the legacy projection applied here, so that a projection the
 * new search words differently (unknown fields, paths into arrays, a sort
 * field projected away) still answers what MongoDB answered.
 */
import { jobs, tasks } from '../../../kernel/index.ts';
import type { DocType } from '../../../kernel/index.ts';
import { project, readLimit, readProjection, readSkip, readSort, singleSort } from './legacy-options.ts';
import type { MongoProjection } from './legacy-options.ts';
import { legacyError, LegacyFailure } from './run.ts';
import type { HatchApi } from './run.ts';
import { nextSkipOf, readPages } from './pages.ts';
import { translateQuery, UntranslatableQuery } from './translate.ts';

export type SearchType = 'jobs' | 'tasks';
const TYPES: Readonly<Record<SearchType, DocType>> = { jobs, tasks };

export interface LegacySearch {
  readonly type: SearchType;
  /** The MongoDB filter. */
  readonly query: unknown;
  readonly sort?: unknown;
  readonly skip?: unknown;
  readonly limit?: unknown;
  /** The caller's projection. */
  readonly fields?: unknown;
  /** A projection the operation itself applies after the caller's (queryTasksBrief's brief fields). */
  readonly fixed?: MongoProjection | null;
  /** Parameters given to the core as they are (`dereference`). */
  readonly extra?: Readonly<Record<string, string>>;
}

export interface LegacyResults {
  readonly docs: unknown[];
  /** Every document the query selects. */
  readonly total: number;
  readonly skip: number;
  /** null: no limit. */
  readonly limit: number | null;
}

/** `q` for a legacy query, refused as the `translateQuery` step refuses. */
export function qOf(query: unknown, type?: SearchType): Record<string, string> {
  try {
    return translateQuery(query, type);
  } catch (err) {
    if (err instanceof UntranslatableQuery) throw new LegacyFailure(`This query cannot be expressed in the operations-manager search: ${err.message}`);
    throw err;
  }
}

function head(path: string): string {
  return path.split('.')[0]!;
}

/**
 * What the core is asked to leave out, only to carry less: the gateway
 * projects again. Whole properties only, never the sort field.
 */
function coreProjection(type: DocType, projections: ReadonlyArray<MongoProjection | null>, sortField: string | null): Record<string, string> {
  const [first] = projections.filter((p): p is MongoProjection => p !== null);
  const keep = sortField === null ? null : head(sortField);
  if (first?.kind === 'include') {
    const heads = new Set(first.paths.map(head));
    if (keep) heads.add(keep);
    heads.delete('_id');
    // A property the core does not know would be a 400 there; MongoDB answers it, so ask for everything.
    if (![...heads].every((h) => type.properties.has(h))) return {};
    return { include: heads.size === 0 ? '_id' : [...heads].join(',') };
  }
  const dropped = new Set<string>();
  for (const p of projections) if (p?.kind === 'exclude') for (const path of p.paths) if (!path.includes('.') && path !== '_id' && path !== keep && type.properties.has(path)) dropped.add(path);
  return dropped.size === 0 ? {} : { exclude: [...dropped].join(',') };
}

interface Page {
  readonly data?: unknown;
  readonly metadata?: { readonly total?: unknown };
}

/**
 * Runs a legacy search: the whole answer the legacy platform gave, read in
 * pages of at most `api.paging.pageMax`, up to `api.paging.maxRecords`. Pages are separate reads, so a
 * document changed meanwhile may move between them (as in a MongoDB cursor).
 */
export async function legacySearch(api: HatchApi, search: LegacySearch): Promise<LegacyResults> {
  const type = TYPES[search.type];
  const sortKeys = readSort(search.sort);
  const sort = singleSort(sortKeys);
  const skip = readSkip(search.skip);
  const limit = readLimit(search.limit);
  const projection = readProjection(search.fields);
  const base = {
    ...qOf(search.query, search.type),
    ...(sort ? { sort: sort.sort, order: sort.order } : {}),
    ...coreProjection(type, [projection, search.fixed ?? null], sort?.sort ?? null),
    ...search.extra,
  };
  const { items: docs, total } = await readPages({
    skip,
    limit,
    paging: api.paging,
    read: async (at, want) => {
      const answer = await api.call({ method: 'GET', path: `/operations-manager/${search.type}`, query: { ...base, skip: String(at), limit: String(want) }, body: undefined });
      if (answer.status < 200 || answer.status > 299) throw legacyError(answer);
      const page = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as Page;
      return { items: Array.isArray(page.data) ? page.data : [], total: Number(page.metadata?.total ?? 0), nextSkip: nextSkipOf(page.metadata) };
    },
  });
  const fixed = search.fixed ?? null;
  return { docs: docs.map((d) => project(project(d, projection), fixed)), total, skip, limit };
}
