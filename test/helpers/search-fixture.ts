/**
 * A store filled with the hand-made search data set and the real core in
 * front of it, for the suites that assert exact search answers.
 */
import type { SearchLimits } from '../../kernel/search/parse-search.ts';
import type { Store } from '../../kernel/store/types.ts';
import { accounts, groups, jobs, tasks } from '../fixtures/search-data.ts';
import { startCore } from './core.ts';
import type { RunningCore } from './core.ts';
import type { StoreFactory } from './stores.ts';

/** The defaults of config/default.json, for tests that call the parser directly. */
export const TEST_LIMITS: SearchLimits = { defaultLimit: 100, maxLimit: 1000, maxQueryLength: 16384, maxInItems: 1000, maxQDepth: 8, maxQNodes: 200, maxValueLength: 1024, maxUnindexedSortWindow: 10000, maxPageMb: 64 };

export interface SearchFixture {
  readonly store: Store;
  readonly core: RunningCore;
  close(): Promise<void>;
}

export async function startSearchFixture(factory: StoreFactory): Promise<SearchFixture> {
  const store = await factory.open();
  await store.collection('jobs').insertMany(jobs);
  await store.collection('tasks').insertMany(tasks);
  await store.collection('groups').insertMany(groups);
  await store.collection('accounts').insertMany(accounts);
  const core = await startCore(store);
  return {
    store,
    core,
    async close() {
      await core.close();
      await store.close();
    },
  };
}
