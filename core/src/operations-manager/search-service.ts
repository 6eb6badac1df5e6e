/**
 * Search and read of jobs and tasks: runs the validated request against the
 * store, expands references, applies the projection, and computes the
 * pagination metadata.
 */
import { AppError, NotFoundError } from '../errors.ts';
import type { DocType } from '../search/fields.ts';
import type { ReadOptions, SearchRequest } from '../search/parse-search.ts';
import { applyProjection } from '../search/projection.ts';
import type { Doc, Store } from '../store/types.ts';
import { dereference } from './dereference.ts';

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

export interface SearchService {
  search(request: SearchRequest): Promise<{ docs: Doc[]; metadata: PageMetadata }>;
  read(type: DocType, id: string, options: ReadOptions): Promise<Doc>;
}

export function createSearchService(store: Store): SearchService {
  return {
    async search(request) {
      let result;
      try {
        result = await store.collection(request.type.collection).search(request);
      } catch (err) {
        throw explainStoreError(err);
      }
      await dereference(request.type, result.docs, request.dereference, store);
      const docs = result.docs.map((d) => applyProjection(d, request.projection));
      return { docs, metadata: pageMetadata(request.skip, request.limit, result.total, docs.length) };
    },
    async read(type, id, options) {
      const doc = await store.collection(type.collection).findById(id);
      if (!doc) throw new NotFoundError(`${type.name === 'jobs' ? 'Job' : 'Task'} ${id} was not found`);
      await dereference(type, [doc], options.dereference, store);
      return applyProjection(doc, options.projection);
    },
  };
}

/** A missing text index is an operator's fix, but the caller should learn why the search failed. */
function explainStoreError(err: unknown): unknown {
  const message = err instanceof Error ? err.message : '';
  if (/no such table: \w+__fts|text index required/i.test(message)) {
    return new AppError(400, 'BAD_REQUEST', 'Text search needs the text index of this collection; an administrator can build it with POST /indexes/jobs');
  }
  return err;
}
