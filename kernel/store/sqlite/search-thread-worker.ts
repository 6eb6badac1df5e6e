/**
 * The search thread's side (search-thread.ts starts it): a read-only
 * connection to the store's file, and the same collections' read path the
 * event loop would run, so a page and its total are read exactly as there,
 * in one transaction, from one snapshot. In WAL mode a reader sees every
 * transaction committed before its own began, so a search sent after a
 * write has been acknowledged sees that write.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { AppError } from '../../errors.ts';
import type { CollectionSpec } from '../collections.ts';
import { SqliteCollection } from './collection.ts';
import type { SearchThreadAnswer, SearchThreadInit, SearchThreadRequest } from './search-thread.ts';

const { file, specs, countCacheEntries, cacheKb } = workerData as SearchThreadInit;
const port = parentPort!;
const db = new Database(file, { readonly: true, fileMustExist: true });
db.pragma(`cache_size = -${cacheKb}`);
// Counted totals drop what they remember when another connection commits (PRAGMA data_version), so the thread
// keeps its own count cache; it has no text-index tidy, which writes.
const collections = new Map<string, SqliteCollection>(specs.map((spec: CollectionSpec) => [spec.name, new SqliteCollection(db, spec, countCacheEntries, null)]));

/** An error as data: its message, its SQLite code, and for the error family its status, code and details. */
function failure(err: unknown): SearchThreadAnswer['error'] {
  if (err instanceof AppError) return { message: err.message, app: { status: err.status, code: err.code, details: err.details } };
  const code = (err as { code?: unknown }).code;
  return { message: err instanceof Error ? err.message : String(err), sqliteCode: typeof code === 'string' ? code : null };
}

port.on('message', (request: SearchThreadRequest | { readonly close: true }) => {
  if ('close' in request) {
    db.close();
    port.close();
    return;
  }
  let answer: SearchThreadAnswer;
  try {
    const collection = collections.get(request.collection);
    if (!collection) throw new Error(`collection ${request.collection} is not declared by this store`);
    const { work } = request;
    if (work.kind === 'spans') {
      answer = { id: request.id, ...collection.spansHere(work.where, work.from, work.to) };
    } else {
      const page = collection.searchJsonHere(work.query, work.hide);
      answer = { id: request.id, json: page.json, count: page.count, total: page.total };
    }
  } catch (err) {
    answer = { id: request.id, error: failure(err) };
  }
  // The page's bytes are handed over, not copied: their buffer is the page's own (collection.ts).
  port.postMessage(answer, answer.json ? [answer.json.buffer as ArrayBuffer] : []);
});
port.postMessage({ ready: true });
