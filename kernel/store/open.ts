/**
 * Chooses the store from the config: MongoDB when `mongoUrl` is set,
 * otherwise the embedded SQLite file under `dataDir`.
 */
import type { CollectionSpec } from './collections.ts';
import type { SearchThreadChange, Store } from './types.ts';
import { SqliteStore } from './sqlite/store.ts';

export interface StoreConfig {
  readonly dataDir: string;
  readonly mongoUrl: string | null;
  readonly search: { readonly countCacheEntries: number };
  /** Absent: SQLite checkpoints at commit, and answers searches, on the caller's event loop. */
  readonly sqlite?: { readonly checkpointMs: number; readonly searchThread?: boolean };
}

/** What a store reports as it runs, for the service's log: the embedded store's search thread starting and stopping. */
export interface StoreEvents {
  readonly searchThread?: (change: SearchThreadChange) => void;
}

/** `collections`: the ones the calling service keeps; the store builds and reaches only these. */
export async function openStore(config: StoreConfig, collections: readonly CollectionSpec[], events: StoreEvents = {}): Promise<Store> {
  if (config.mongoUrl) {
    const { MongoStore } = await import('./mongo/store.ts');
    return MongoStore.connect(config.mongoUrl, collections);
  }
  return SqliteStore.open({
    dataDir: config.dataDir,
    countCacheEntries: config.search.countCacheEntries,
    checkpointMs: config.sqlite?.checkpointMs ?? 0,
    searchThread: config.sqlite?.searchThread === true,
    ...(events.searchThread ? { onSearchThread: events.searchThread } : {}),
    collections,
  });
}
