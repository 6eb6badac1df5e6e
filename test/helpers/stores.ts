/**
 * The store a suite runs on, taken from the environment: MongoDB when
 * MONGO_URL is set (a replica-set URL works; each store in its own database,
 * all dropped when the test file ends), otherwise the embedded SQLite store.
 * `npm test` (scripts/run-tests.mjs) says once, for the whole run, whether
 * MongoDB ran and why not, and stops early with one message when MONGO_URL
 * names a server it cannot reach. Contract tests that compare both stores
 * use `storeFactories()`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import type { SqliteStoreOptions } from '../../kernel/store/sqlite/store.ts';
import type { CollectionSpec } from '../../kernel/store/collections.ts';
import type { Store } from '../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';
import { eventually } from './wait.ts';

export interface StoreFactory {
  /** What the suite's name says it runs on. */
  readonly name: string;
  readonly kind: 'sqlite' | 'mongodb';
  /** Why this store does not run here, or null when it does. */
  readonly skip: string | null;
  open(): Promise<Store>;
}

export const MONGO_SKIP_REASON = 'MONGO_URL is not set: the MongoDB variant of this suite did not run';

/** Tests wait this long for a server, not the store's 5 s, so an unreachable one fails fast. */
const TEST_SERVER_SELECTION_MS = 2_000;

const mongoUrl = process.env['MONGO_URL'] || null;

/** Whether the suites of this run use MongoDB. */
export const TEST_STORE: 'sqlite' | 'mongodb' = mongoUrl ? 'mongodb' : 'sqlite';

/**
 * The same connection string with another database: replaces the path of
 * `mongodb[+srv]://[user@]h1,h2/db?opts` (which `new URL()` cannot parse with
 * several hosts) and adds a short server selection timeout unless it has one.
 */
export function withDatabase(url: string, database: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(?:\/[^?]*)?(?:\?(.*))?$/i.exec(url);
  if (!m) throw new Error(`MONGO_URL must be a mongodb:// or mongodb+srv:// URL, not ${url.replace(/\/\/[^@/]*@/, '//***@')}`);
  const options = (m[2] ?? '').split('&').filter((p) => p.length > 0);
  if (!options.some((p) => p.split('=')[0]!.toLowerCase() === 'serverselectiontimeoutms')) options.push(`serverSelectionTimeoutMS=${TEST_SERVER_SELECTION_MS}`);
  return `${m[1]}/${encodeURIComponent(database)}?${options.join('&')}`;
}

const created: string[] = [];
const opened: Store[] = [];

/**
 * A database of its own for this test file, dropped when the file's tests
 * end. The hook is registered at first use, at the root, so it runs after
 * every test of the file.
 */
export function testMongoUrl(): string {
  if (!mongoUrl) throw new Error(MONGO_SKIP_REASON);
  const database = `iap_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  created.push(database);
  return withDatabase(mongoUrl, database);
}

/** True once a store of this file reached the server: only then is there anything to drop. */
let reached = false;

// Registered when the module loads, so it is a root hook: it runs after the file's last test.
if (mongoUrl) {
  after(async () => {
    for (const store of opened) await store.close().catch(() => undefined);
    if (created.length === 0 || !reached) return;
    const { MongoClient } = await import('mongodb');
    const client = new MongoClient(withDatabase(mongoUrl, 'admin'));
    try {
      for (const database of created) await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  });
}

export async function openMongoTestStore(collections: readonly CollectionSpec[] = CORE_COLLECTIONS): Promise<Store> {
  const { MongoStore } = await import('../../kernel/store/mongo/store.ts');
  const store = await MongoStore.connect(testMongoUrl(), collections);
  reached = true;
  opened.push(store);
  return store;
}

/**
 * The store this run's suites use, empty, with the core's collections unless
 * told (the gateway's are GATEWAY_COLLECTIONS); `countCacheEntries` tunes the
 * embedded store only.
 */
export async function openTestStore(options: { countCacheEntries?: number; collections?: readonly CollectionSpec[] } = {}): Promise<Store> {
  const collections = options.collections ?? CORE_COLLECTIONS;
  if (mongoUrl) return openMongoTestStore(collections);
  return SqliteStore.open({ dataDir: ':memory:', ...(options.countCacheEntries === undefined ? {} : { countCacheEntries: options.countCacheEntries }), collections });
}

/**
 * Environment for a core started as a child process: its data directory,
 * and with MONGO_URL a database of its own (the same one for every process
 * given this environment, so a restart finds what the first process wrote).
 */
export function storeEnv(dataDir: string): Record<string, string> {
  if (!mongoUrl) return { DATA_DIR: dataDir };
  reached = true; // the child processes create it
  return { DATA_DIR: dataDir, MONGO_URL: testMongoUrl() };
}

/**
 * The store that core processes given `env` (from storeEnv) share, opened in
 * this process: to read what they left once they have stopped, or to start
 * an in-process core on it.
 */
export async function openStoreOf(env: Record<string, string>): Promise<Store> {
  const url = env['MONGO_URL'];
  if (url) {
    const { MongoStore } = await import('../../kernel/store/mongo/store.ts');
    return MongoStore.connect(url, CORE_COLLECTIONS);
  }
  return SqliteStore.open({ dataDir: env['DATA_DIR']!, collections: CORE_COLLECTIONS });
}

export function storeFactories(): StoreFactory[] {
  return [
    { name: 'sqlite', kind: 'sqlite', skip: null, open: async () => SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }) },
    { name: 'mongodb', kind: 'mongodb', skip: mongoUrl ? null : MONGO_SKIP_REASON, open: () => openMongoTestStore() },
  ];
}

const threadedDirs: string[] = [];

/** The embedded store in `dir` as a core process opens it, once its search thread answers callers' searches. */
export async function openThreadedStore(dir: string, options: Pick<SqliteStoreOptions, 'onSearchThread' | 'searchRestartMs'> = {}): Promise<SqliteStore> {
  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS, searchThread: true, ...options });
  await eventually(() => store.searchesOffLoop, { what: 'the search thread opened its connection', timeoutMs: 20_000 });
  return store;
}

/**
 * The stores of the suites that check callers' searches: those of storeFactories, and the embedded store on a
 * file with its search thread, as a core process opens it, so callers' searches are answered by the thread.
 */
export function searchStoreFactories(): StoreFactory[] {
  if (threadedDirs.length === 0) after(() => threadedDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const threaded: StoreFactory = {
    name: 'sqlite with its search thread',
    kind: 'sqlite',
    skip: null,
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'iap-search-thread-'));
      threadedDirs.push(dir);
      return openThreadedStore(dir);
    },
  };
  const [sqlite, mongodb] = storeFactories();
  return [sqlite!, threaded, mongodb!];
}
