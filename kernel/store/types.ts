/**
 * The repository interface every store implements. Handlers and services see
 * only this; whether documents live in SQLite or MongoDB is decided once, at
 * start, from the config.
 */
import type { Condition, SortKey } from '../search/conditions.ts';
import type { Doc } from '../search/projection.ts';

export type { Doc };

export interface SearchQuery {
  readonly where: Condition | null;
  readonly sort: readonly SortKey[];
  readonly skip: number;
  readonly limit: number;
  /**
   * The most bytes the page's documents may take as stored. Queries a caller shaped carry it (the config's
   * `search.maxPageMb`): past it the store refuses the page (PageTooLargeError) before reading a document.
   * The code's own walks leave it out or, with `shorten`, are given the documents that fit instead.
   */
  readonly maxBytes?: number;
  /**
   * Past `maxBytes`, answer the page's first documents that fit (always at least one) rather than refuse. For walks
   * that go on after the last document they were given, never for a caller's page, whose `skip` would then lie.
   */
  readonly shorten?: boolean;
}

export interface SearchResult {
  readonly docs: Doc[];
  /** Exact number of documents the same filter selects, independent of skip and limit. */
  readonly total: number;
}

/** A page as JSON texts, for answers that pass documents through unchanged. */
/** A page as the bytes of its answer: each document's JSON text, in order, joined by commas, in UTF-8. */
export interface JsonSearchResult {
  readonly json: Buffer;
  /** Documents in `json`. */
  readonly count: number;
  readonly total: number;
}

/** How many documents a condition selects, and the total of their spans (SqliteCollection.spans). */
export interface SpanTotal {
  readonly count: number;
  readonly total: number;
}

export interface IndexKeyPart {
  readonly path: string;
  readonly direction: 1 | -1 | 'text';
}

export interface IndexDescription {
  readonly name: string;
  readonly key: Record<string, 1 | -1 | 'text'>;
  readonly unique?: boolean;
}

/** Shape of `GET /indexes/:collection/status`, as the real platform answers it. */
export interface IndexStatus {
  readonly missing: IndexDescription[];
  readonly misnamed: IndexDescription[];
  readonly external: IndexDescription[];
  /** True when every declared index exists under its declared name. */
  readonly indexed: boolean;
}

export interface DocCollection {
  readonly name: string;
  /**
   * Moves whenever a document of the collection may have changed, written by this process or any other: a
   * reader that keeps what it read (the workflows a job start reads) may reuse it while the mark, taken before
   * the read, stays the same. Null when the store cannot tell cheaply (MongoDB) or the collection is not
   * declared `changeMarked` (kernel/store/collections.ts), and nothing may be kept.
   */
  changeMark(): string | null;
  insertOne(doc: Doc): Promise<void>;
  /** All or nothing: either every document is stored or none is. */
  insertMany(docs: readonly Doc[]): Promise<void>;
  findById(id: string): Promise<Doc | null>;
  /** Documents with these ids, in no particular order; unknown ids are skipped. */
  findByIds(ids: readonly string[]): Promise<Doc[]>;
  search(query: SearchQuery): Promise<SearchResult>;
  /**
   * The documents of the same page, without counting every match: for walks
   * that page by the sort key (`_id` after the last one seen), where a total
   * counted again for each page costs a scan of what is left each time.
   */
  findPage(query: SearchQuery): Promise<Doc[]>;
  /**
   * The ids of at most `limit` documents `where` selects, in no particular
   * order, without counting the rest: for background work that takes what
   * is due a slice at a time, where a total would cost a scan per slice.
   */
  findIds(where: Condition | null, limit: number): Promise<string[]>;
  /**
   * The same page as `search`, as the bytes of its documents' JSON texts with
   * the top-level properties in `hide` removed: lets a search answer without
   * parsing and re-serialising documents it does not change. `caller` says
   * whose search it is: the embedded store takes callers' searches in turn
   * and bounds each caller's share of those waiting (a 429 past it).
   */
  searchJson(query: SearchQuery, hide: readonly string[], caller?: string): Promise<JsonSearchResult>;
  count(where: Condition | null): Promise<number>;
  /**
   * How many documents `where` selects, and the sum over them of `to − from`
   * where both paths hold numbers and `to` is not before `from` (a run time:
   * `metrics.start_time` to `metrics.end_time`). Summed by the store, so no
   * document is read into memory; `caller` as for `searchJson`.
   */
  spans(where: Condition | null, from: string, to: string, caller?: string): Promise<SpanTotal>;
  /** Replaces the document with the same `_id`; false when there is none. */
  replaceOne(doc: Doc): Promise<boolean>;
  deleteOne(id: string): Promise<boolean>;
  /**
   * Replaces the document only while its `_rev` still equals `expectedRev`,
   * so two writers (two requests, two processes) cannot both apply a change
   * made from the same read. False when the document moved on or is gone.
   */
  replaceIfRev(doc: Doc, expectedRev: number | null): Promise<boolean>;
  indexStatus(): Promise<IndexStatus>;
  /** Creates the missing and misnamed declared indexes; answers the status after. */
  buildIndexes(): Promise<IndexStatus>;
}

/** One write of a batch. */
export type WriteOp =
  /**
   * `json`, when given, is `JSON.stringify(doc)`, made by a writer that needed the text anyway (the engine
   * measures every job it commits): the embedded store writes it instead of serialising the document again.
   */
  | { readonly op: 'insert'; readonly collection: string; readonly doc: Doc; readonly json?: string }
  | { readonly op: 'replace'; readonly collection: string; readonly doc: Doc }
  | { readonly op: 'replaceIfRev'; readonly collection: string; readonly doc: Doc; readonly expectedRev: number | null; readonly json?: string }
  /**
   * Sets these top-level fields on every document `where` selects, leaving
   * the rest of each as it is at commit time: for a change to documents
   * another writer may rewrite meanwhile (a read-then-replace would undo it).
   */
  | { readonly op: 'setFields'; readonly collection: string; readonly where: Condition; readonly fields: Readonly<Record<string, unknown>> }
  /** Removes the document with this `_id`, if there is one (the archiver's deletes: one commit for many). */
  | { readonly op: 'delete'; readonly collection: string; readonly id: string };

export interface Store {
  readonly kind: 'sqlite' | 'mongodb';
  collection(name: string): DocCollection;
  /**
   * Applies writes in order, all or nothing: one transaction on either store
   * (MongoDB runs only on a replica set for this; docs/deployment.md). False,
   * with nothing applied, when a `replaceIfRev` finds the revision moved on.
   */
  batch(ops: readonly WriteOp[]): Promise<boolean>;
  /**
   * Adds one to the `count` of the counter document `id` and answers the new
   * count, atomically across every process sharing the store. A counter not
   * there (or past its `expiresAt`, epoch ms) starts at 1 and expires at
   * `expiresAt`. Counters of the collection past their expiry are dropped.
   */
  increment(collection: string, id: string, expiresAt: number, now: number): Promise<number>;
  /**
   * False while the store would rather background writers (the archiver)
   * waited: the embedded store while its WAL is long because readers keep
   * it from being started again (docs/archive.md). Never asked for a
   * request's writes. Cheap enough to ask before every batch.
   */
  roomForBackgroundWrites(): boolean;
  /**
   * Where callers' searches run, for logs and metrics: the embedded store's
   * search thread (kernel/store/sqlite/search-thread.ts). Null where no
   * search holds the caller's event loop (MongoDB, whose server runs them).
   */
  searchThread(): SearchThreadStatus | null;
  close(): Promise<void>;
}

/**
 * `off`: searches run on the event loop by configuration (or a `:memory:`
 * store); `starting`: until the thread has opened its connection, they do
 * too; `down`: the thread died and is started again (after a wait when it
 * keeps dying), and meanwhile they do again.
 */
export interface SearchThreadStatus {
  readonly state: 'off' | 'starting' | 'ready' | 'down';
  /** Searches queued for the thread or at it. */
  readonly held: number;
  /** Threads started again after one died, since the store opened. */
  readonly restarts: number;
}

/** What the embedded store's search thread reports as it changes: when ready, and when it stops without being closed. */
export type SearchThreadChange = { readonly state: 'ready' } | { readonly state: 'stopped'; readonly error: unknown; readonly restartInMs: number };

/** A write that would duplicate a unique key (an `_id` or a unique index). */
export class DuplicateKeyError extends Error {
  constructor(readonly collection: string, readonly key: string) {
    super(`${collection}: a document with the same ${key} already exists`);
  }
}
