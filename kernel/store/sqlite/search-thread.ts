/**
 * Searches of the embedded store on a thread of their own. better-sqlite3
 * runs every statement on the calling thread, and a search the language
 * allows may read every row: a sort on a field without an index reads all
 * matches, 1.7 s at a million jobs, and while it ran the core answered
 * nothing, not even `/health/live`. Any caller allowed to search could hold
 * the core so, again and again (docs/search.md, "Searches off the event
 * loop"). On this thread such a search costs a search's time, and requests,
 * job starts and liveness go on meanwhile.
 *
 * One thread, searches answered in the order they came: a long search makes
 * the searches behind it wait, not the rest of the service. Past
 * `maxWaiting` searches waiting, a search is refused at once as a 503 worth
 * retrying rather than queued without bound. Until the thread has opened
 * its connection, and if it ever dies, searches run on the event loop as
 * before; a search that was waiting on a thread that died is refused (503).
 */
import { Worker } from 'node:worker_threads';
import { AppError, StoreUnavailableError } from '../../errors.ts';
import type { ErrorCode } from '../../errors.ts';
import type { CollectionSpec } from '../collections.ts';
import type { JsonSearchResult, SearchQuery } from '../types.ts';
import { storeError } from './store-errors.ts';

const BOOT = new URL('./search-thread-boot.mjs', import.meta.url);
const ENTRY = new URL('./search-thread-worker.ts', import.meta.url).href;

export interface SearchThreadInit {
  readonly file: string;
  /** Names and indexes only: a registry's document type holds nothing the read path needs. */
  readonly specs: readonly CollectionSpec[];
  readonly countCacheEntries: number;
  /** The thread's page cache, KiB. */
  readonly cacheKb: number;
}

export interface SearchThreadRequest {
  readonly id: number;
  readonly collection: string;
  readonly query: SearchQuery;
  readonly hide: readonly string[];
}

export interface SearchThreadAnswer {
  readonly id: number;
  /** A Buffer when sent; a plain Uint8Array over the same bytes when received. */
  readonly json?: Uint8Array;
  readonly count?: number;
  readonly total?: number;
  readonly error?: { readonly message: string; readonly sqliteCode?: string | null; readonly app?: { readonly status: number; readonly code: ErrorCode } };
}

interface Waiting {
  readonly resolve: (page: JsonSearchResult) => void;
  readonly reject: (err: unknown) => void;
}

/** The error the thread reported, as the event loop's read path would have thrown it; a busy file is a 503 to retry. */
function rebuilt(error: NonNullable<SearchThreadAnswer['error']>): unknown {
  if (error.app) return new AppError(error.app.status, error.app.code, error.message);
  const err = new Error(error.message);
  if (error.sqliteCode) Object.assign(err, { code: error.sqliteCode });
  return storeError(err);
}

/** The page's bytes as a Buffer over the memory handed over, without a copy. */
function bytesOf(json: Uint8Array | undefined): Buffer {
  return json ? Buffer.from(json.buffer, json.byteOffset, json.byteLength) : Buffer.alloc(0);
}

export class SearchThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private state: 'starting' | 'ready' | 'closing' | 'dead' = 'starting';
  /** Set by `close` while searches are still out: called once the last is answered. */
  private drained: (() => void) | null = null;

  constructor(init: SearchThreadInit, private readonly maxWaiting: number) {
    const specs = init.specs.map((s) => ({ name: s.name, docType: null, indexes: s.indexes, ...(s.changeMarked ? { changeMarked: true } : {}) }));
    this.worker = new Worker(BOOT, { workerData: { ...init, specs, entry: ENTRY } });
    this.worker.on('message', (answer: SearchThreadAnswer | { readonly ready: true }) => {
      if ('ready' in answer) {
        if (this.state === 'starting') this.state = 'ready';
        return;
      }
      const waiting = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (answer.error) waiting?.reject(rebuilt(answer.error));
      else waiting?.resolve({ json: bytesOf(answer.json), count: answer.count ?? 0, total: answer.total ?? 0 });
      if (this.waiting.size === 0) this.idle();
    });
    const died = (err?: unknown): void => {
      if (this.state === 'dead') return;
      this.state = 'dead';
      for (const w of this.waiting.values()) w.reject(new StoreUnavailableError('The store\'s search thread stopped; try again', err));
      this.waiting.clear();
      this.idle();
    };
    this.worker.on('error', died);
    this.worker.on('exit', () => died());
    // Idle, it must never keep a process alive; asked something, it must until it answers (as the checkpoint thread).
    this.worker.unref();
  }

  private idle(): void {
    this.worker.unref();
    this.drained?.();
    this.drained = null;
  }

  /** True once the thread has opened its connection, until it dies or is closed. */
  get ready(): boolean {
    return this.state === 'ready';
  }

  searchJson(collection: string, query: SearchQuery, hide: readonly string[]): Promise<JsonSearchResult> {
    if (this.waiting.size >= this.maxWaiting) {
      return Promise.reject(new StoreUnavailableError(`${this.waiting.size} searches are already waiting for the store; try again`));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.ref();
      // What the read path uses and nothing more: a caller's request also carries its document type, which is large.
      const request: SearchThreadRequest = { id, collection, query: { where: query.where, sort: query.sort, skip: query.skip, limit: query.limit }, hide };
      this.worker.postMessage(request);
    });
  }

  /** Ends the thread once the searches sent have been answered, before the store's connection closes. */
  async close(): Promise<void> {
    if (this.state === 'dead' || this.state === 'closing') return;
    this.state = 'closing';
    if (this.waiting.size > 0) await new Promise<void>((done) => (this.drained = done));
    const exited = new Promise<void>((done) => this.worker.once('exit', () => done()));
    this.worker.ref();
    this.worker.postMessage({ close: true });
    await exited;
  }
}
