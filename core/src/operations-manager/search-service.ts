/**
 * Search and read of jobs and tasks: runs the validated request against the
 * store, expands references, applies the projection, and computes the
 * pagination metadata.
 */
import { mayAccess, searcher, seesAllJobs } from '../auth/caller.ts';
import type { Caller } from '../auth/caller.ts';
import { and, AppError, applyProjection, pageDocs } from '../../../kernel/index.ts';
import type { Condition, Doc, DocType, ReadOptions, SearchRequest, Store } from '../../../kernel/index.ts';
import { dereference } from './dereference.ts';
import type { DereferenceLimits } from './dereference.ts';
import { JOBS, TASKS } from '../store/collections.ts';

export interface PageMetadata {
  skip: number;
  limit: number;
  nextPageSkip: number | null;
  previousPageSkip: number | null;
  total: number;
  currentPageSize: number;
}

export function pageMetadata(skip: number, limit: number, total: number, currentPageSize: number): PageMetadata {
  return {
    skip,
    limit,
    // CASE: limit=0 asks only for the total; a next page would never advance.
    nextPageSkip: limit > 0 && skip + limit < total ? skip + limit : null,
    previousPageSkip: skip > 0 ? Math.max(0, skip - limit) : null,
    total,
    currentPageSize,
  };
}

/** A page either as documents or, when nothing needs to change them, as the bytes of their JSON texts joined by commas. */
export type SearchPage = { readonly docs: Doc[]; readonly metadata: PageMetadata } | { readonly json: Buffer; readonly metadata: PageMetadata };

export interface SearchService {
  /** Searches what the caller may see: docs/decisions.md D15 applies to every answer. */
  search(request: SearchRequest, caller: Caller): Promise<SearchPage>;
  /** A document the caller may not see is answered as not found, so its existence does not leak. */
  read(type: DocType, id: string, options: ReadOptions, caller: Caller): Promise<Doc>;
}

/**
 * The documents a caller may see: those without groups, and those sharing a
 * group with the caller (directly or through a group of groups). None for
 * operations-manager admins, who see everything.
 */
export function visibility(type: DocType, caller: Caller): Condition | null {
  const groups = type.fields.get('groups');
  if (!groups || seesAllJobs(caller)) return null;
  const empty: Condition = { kind: 'empty', field: groups };
  if (caller.groupIds.size === 0) return empty;
  return { kind: 'or', items: [empty, { kind: 'in', field: groups, values: [...caller.groupIds] }] };
}

export function createSearchService(store: Store, limits: DereferenceLimits): SearchService {
  return {
    async search(asked, caller) {
      const visible = visibility(asked.type, caller);
      const request: SearchRequest = visible ? { ...asked, where: and([...(asked.where ? [asked.where] : []), visible]) } : asked;
      const collection = store.collection(request.type.collection);
      const hide = removable(request);
      if (hide) {
        // Nothing to expand or rebuild: pass the stored JSON through.
        const page = await collection.searchJson(request, hide, searcher(caller)).catch((err: unknown) => Promise.reject(explainStoreError(err)));
        return { json: page.json, metadata: pageMetadata(request.skip, request.limit, page.total, page.count) };
      }
      // Through searchJson as well: callers' searches run off the event loop in the embedded store (search-thread.ts).
      const page = await collection.searchJson(request, [], searcher(caller)).catch((err: unknown) => Promise.reject(explainStoreError(err)));
      const found = pageDocs(page);
      await dereference(request.type, found, request.dereference, store, limits);
      const docs = found.map((d) => applyProjection(d, request.projection));
      return { docs, metadata: pageMetadata(request.skip, request.limit, page.total, docs.length) };
    },
    async read(type, id, options, caller) {
      const doc = await store.collection(type.collection).findById(id);
      // A job or task the caller may not see is not found, like one that does not exist.
      if (!doc || !mayAccess(caller, doc['groups'])) throw (type.collection === JOBS.name ? JOBS : TASKS).notFound(id);
      await dereference(type, [doc], options.dereference, store, limits);
      return applyProjection(doc, options.projection);
    },
  };
}

/**
 * The paths to remove when the page can pass through as stored JSON: no
 * dereference, and a projection that only removes. Null when documents must
 * be built in memory.
 */
function removable(request: SearchRequest): string[] | null {
  if (request.dereference.length > 0) return null;
  const hidden = [...request.type.dereferenceOnly, ...request.type.internal];
  if (request.projection.kind === 'all') return request.projection.dropId ? [...hidden, '_id'] : hidden;
  if (request.projection.kind === 'exclude') return [...new Set([...hidden, ...request.projection.paths])];
  return null;
}

/** A missing text index is an operator's fix, but the caller should learn why the search failed. */
function explainStoreError(err: unknown): unknown {
  const message = err instanceof Error ? err.message : '';
  if (/no such table: \w+__fts|text index required/i.test(message)) {
    return new AppError(400, 'BAD_REQUEST', 'Text search needs the text index of this collection; an administrator can build it with POST /indexes/jobs');
  }
  return err;
}
