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
 * One thread, callers' searches taken in turn (search-turns.ts): a long
 * search makes the searches behind it wait, not the rest of the service, and
 * a caller with many waiting delays another caller's by at most one of
 * theirs. Past the bound, a search is refused at once rather than queued
 * without bound: a 503 worth retrying when every caller's searches fill it,
 * a 429 when the caller alone holds their share. Until the thread has opened
 * its connection, searches run on the event loop as before. A thread that
 * dies fails the searches it held (503) and is started again, after waits
 * that grow while it keeps dying; meanwhile searches run on the event loop.
 */
import { Worker } from 'node:worker_threads';
import { AppError, StoreUnavailableError, TooManyRequestsError } from '../../errors.ts';
import type { ErrorCode, ErrorDetail } from '../../errors.ts';
import type { CollectionSpec } from '../collections.ts';
import type { Condition } from '../../search/conditions.ts';
import type { JsonSearchResult, SearchQuery, SearchThreadChange, SearchThreadStatus, SpanTotal } from '../types.ts';
import { adoptRoomy } from '../json-page.ts';
import { storeError } from './store-errors.ts';
import { SearchTurns } from './search-turns.ts';

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

/** What the thread reads: a page and its total, or how many documents there are and the total of their spans. */
export type SearchThreadWork =
  | { readonly kind: 'page'; readonly query: SearchQuery; readonly hide: readonly string[] }
  | { readonly kind: 'spans'; readonly where: Condition | null; readonly from: string; readonly to: string };

export interface SearchThreadRequest {
  readonly id: number;
  readonly collection: string;
  readonly work: SearchThreadWork;
}

export interface SearchThreadAnswer {
  readonly id: number;
  /** A Buffer when sent; a plain Uint8Array over the same bytes when received. */
  readonly json?: Uint8Array;
  readonly count?: number;
  readonly total?: number;
  readonly error?: { readonly message: string; readonly sqliteCode?: string | null; readonly app?: { readonly status: number; readonly code: ErrorCode; readonly details: readonly ErrorDetail[] } };
}

interface Waiting {
  readonly caller: string;
  readonly request: SearchThreadRequest;
  readonly resolve: (answer: SearchThreadAnswer) => void;
  readonly reject: (err: unknown) => void;
}

export interface SearchBounds {
  /** Searches queued or at the thread, of every caller, past which the next is refused (503). */
  readonly held: number;
  /** The same for one caller's own (429). */
  readonly heldPerCaller: number;
}

/**
 * Searches handed to the thread at once: two, so that it starts the next as soon as it posts an answer rather
 * than idling for a round trip, and a caller who comes in waits behind at most one search besides their turn.
 */
const AT_THREAD = 2;

/** Seconds a caller refused for their share is told to wait: searches are answered in milliseconds to seconds. */
const RETRY_SHARE_S = 1;

/** The error the thread reported, as the event loop's read path would have thrown it; a busy file is a 503 to retry. */
function rebuilt(error: NonNullable<SearchThreadAnswer['error']>): unknown {
  if (error.app) return new AppError(error.app.status, error.app.code, error.message, error.app.details);
  const err = new Error(error.message);
  if (error.sqliteCode) Object.assign(err, { code: error.sqliteCode });
  return storeError(err);
}

/** The page's bytes as a Buffer over the memory handed over, without a copy. */
function bytesOf(json: Uint8Array | undefined): Buffer {
  return json ? adoptRoomy(Buffer.from(json.buffer, json.byteOffset, json.byteLength)) : Buffer.alloc(0);
}

/** A thread that lived this long before it died was healthy: the next restart is at once, not after a wait. */
const HEALTHY_MS = 60_000;
/** The longest wait before starting a thread again, however often it has failed. */
const MAX_RESTART_MS = 60_000;

export interface SearchThreadOptions {
  readonly bounds: SearchBounds;
  /** Told once a thread is ready, and when one stops without being closed (the store has no logger). */
  readonly onChange?: (change: SearchThreadChange) => void;
  /** The wait before the second restart in a row; each later one waits twice the one before. */
  readonly restartMs?: number;
}

export class SearchThread {
  private worker!: Worker;
  private readonly workerData: SearchThreadInit & { readonly entry: string };
  /** Searches handed to the thread, by request id. */
  private readonly waiting = new Map<number, Waiting>();
  private readonly turns: SearchTurns<Waiting>;
  private readonly onChange: (change: SearchThreadChange) => void;
  private readonly restartMs: number;
  private nextId = 1;
  /** `down`: the last thread died, and the next waits for its restart. */
  private state: 'starting' | 'ready' | 'down' | 'closing' | 'closed' = 'starting';
  private startedAt = 0;
  /** Threads that died in a row, each within HEALTHY_MS of its start. */
  private failures = 0;
  private restart: NodeJS.Timeout | null = null;
  /** Threads started again after one died. */
  private restarts = 0;
  /** Set by `close` while searches are still out: called once the last is answered. */
  private drained: (() => void) | null = null;

  constructor(init: SearchThreadInit, options: SearchThreadOptions) {
    this.turns = new SearchTurns(options.bounds.held, options.bounds.heldPerCaller);
    this.onChange = options.onChange ?? (() => {});
    this.restartMs = options.restartMs ?? 1000;
    const specs = init.specs.map((s) => ({ name: s.name, docType: null, indexes: s.indexes, ...(s.changeMarked ? { changeMarked: true } : {}) }));
    this.workerData = { ...init, specs, entry: ENTRY };
    this.start();
  }

  private start(): void {
    this.restart = null;
    this.state = 'starting';
    this.startedAt = performance.now();
    const worker = new Worker(BOOT, { workerData: this.workerData });
    this.worker = worker;
    worker.on('message', (answer: SearchThreadAnswer | { readonly ready: true }) => this.answered(answer));
    // A thread's 'error' is followed by its 'exit': the first ends it, once.
    worker.on('error', (err) => this.died(worker, err));
    worker.on('exit', (code) => this.died(worker, new Error(`the search thread exited with code ${code}`)));
    // Idle, it must never keep a process alive; asked something, it must until it answers (as the checkpoint thread).
    worker.unref();
  }

  private answered(answer: SearchThreadAnswer | { readonly ready: true }): void {
    if ('ready' in answer) {
      if (this.state === 'starting') {
        this.state = 'ready';
        this.onChange({ state: 'ready' });
      }
      return;
    }
    const waiting = this.waiting.get(answer.id);
    if (!waiting) return;
    this.waiting.delete(answer.id);
    this.turns.release(waiting.caller);
    if (answer.error) waiting.reject(rebuilt(answer.error));
    else waiting.resolve(answer);
    this.handOver();
    if (this.turns.held === 0) this.idle();
  }

  /**
   * The searches it held are refused (503), and until another thread is ready searches run on the event loop.
   * A thread that dies is started again: at once after a healthy run, then after waits that double, so a
   * thread that cannot start, or a search that kills it each time, costs a start a minute at most.
   */
  private died(worker: Worker, err: unknown): void {
    if (worker !== this.worker || this.state === 'down' || this.state === 'closed') return;
    const closing = this.state === 'closing';
    this.state = closing ? 'closed' : 'down';
    const stopped = new StoreUnavailableError('The store\'s search thread stopped; try again', err);
    for (const w of [...this.waiting.values(), ...this.turns.clear()]) w.reject(stopped);
    this.waiting.clear();
    this.idle();
    if (closing) return;
    this.failures = performance.now() - this.startedAt < HEALTHY_MS ? this.failures + 1 : 1;
    const restartInMs = this.failures <= 1 ? 0 : Math.min(MAX_RESTART_MS, this.restartMs * 2 ** (this.failures - 2));
    this.onChange({ state: 'stopped', error: err, restartInMs });
    this.restarts += 1;
    this.restart = setTimeout(() => this.start(), restartInMs);
    this.restart.unref();
  }

  private idle(): void {
    this.worker.unref();
    this.drained?.();
    this.drained = null;
  }

  /** True once a thread has opened its connection, until it dies or is closed. */
  get ready(): boolean {
    return this.state === 'ready';
  }

  /** For logs and metrics. */
  status(): SearchThreadStatus {
    const state = this.state === 'closing' || this.state === 'closed' ? 'down' : this.state;
    return { state, held: this.turns.held, restarts: this.restarts };
  }

  /** `caller`: whose turn the search takes (search-turns.ts); callers' ids, or one name for the service's own. */
  async searchJson(collection: string, query: SearchQuery, hide: readonly string[], caller: string): Promise<JsonSearchResult> {
    // What the read path uses and nothing more: a caller's request also carries its document type, which is large.
    const page: SearchQuery = { where: query.where, sort: query.sort, skip: query.skip, limit: query.limit, ...(query.maxBytes === undefined ? {} : { maxBytes: query.maxBytes, shorten: query.shorten === true }) };
    const answer = await this.run(collection, { kind: 'page', query: page, hide }, caller);
    return { json: bytesOf(answer.json), count: answer.count ?? 0, total: answer.total ?? 0 };
  }

  /** SqliteCollection.spans, on the thread, in the caller's turn. */
  async spans(collection: string, where: Condition | null, from: string, to: string, caller: string): Promise<SpanTotal> {
    const answer = await this.run(collection, { kind: 'spans', where, from, to }, caller);
    return { count: answer.count ?? 0, total: answer.total ?? 0 };
  }

  private run(collection: string, work: SearchThreadWork, caller: string): Promise<SearchThreadAnswer> {
    return new Promise((resolve, reject) => {
      const request: SearchThreadRequest = { id: this.nextId++, collection, work };
      const refused = this.turns.push(caller, { caller, request, resolve, reject });
      if (refused?.reason === 'full') reject(new StoreUnavailableError(`${refused.held} searches are already waiting for the store; try again`));
      else if (refused) reject(new TooManyRequestsError(`${refused.held} of your searches are already waiting for the store; try again once they are answered`, RETRY_SHARE_S));
      else this.handOver();
    });
  }

  /** Hands the thread the next searches in turn, up to AT_THREAD at once. */
  private handOver(): void {
    while (this.waiting.size < AT_THREAD && (this.state === 'ready' || this.state === 'closing')) {
      const next = this.turns.next();
      if (!next) return;
      this.waiting.set(next.request.id, next);
      this.worker.ref();
      this.worker.postMessage(next.request);
    }
  }

  /** Ends the thread once the searches sent have been answered, before the store's connection closes. */
  async close(): Promise<void> {
    if (this.state === 'closing' || this.state === 'closed') return;
    if (this.restart) clearTimeout(this.restart);
    if (this.state === 'down') {
      this.state = 'closed';
      return;
    }
    this.state = 'closing';
    if (this.turns.held > 0) await new Promise<void>((done) => (this.drained = done));
    const exited = new Promise<void>((done) => this.worker.once('exit', () => done()));
    this.worker.ref();
    this.worker.postMessage({ close: true });
    await exited;
  }
}
