/**
 * Search totals on the embedded store stay exact with the count cache on:
 * writes through the store and commits by another process both drop it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { jobs } from '../../fixtures/search-data.ts';
import { TEST_LIMITS } from '../../helpers/search-fixture.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const complete = parseSearch(jobType, 'equals[status]=complete', TEST_LIMITS);
const newJob = (n: number) => ({ ...jobs[0]!, _id: `${'b'.repeat(22)}${String(n).padStart(2, '0')}` });

test('a total read twice, then changed through the same store, is exact each time', async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', countCacheEntries: 10, collections: CORE_COLLECTIONS });
  const col = store.collection('jobs');
  await col.insertMany(jobs);
  assert.equal((await col.search(complete)).total, 2);
  assert.equal((await col.search(complete)).total, 2);
  await col.insertOne(newJob(1));
  assert.equal((await col.search(complete)).total, 3);
  await col.replaceOne({ ...newJob(1), status: 'error' });
  assert.equal((await col.search(complete)).total, 2);
  await col.insertMany([newJob(2), newJob(3)]);
  assert.equal(await col.count(complete.where), 4);
  await col.deleteOne(newJob(2)['_id'] as string);
  assert.equal((await col.search(complete)).total, 3);
  await store.close();
});

test('a commit by another connection to the same file is seen at once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-count-'));
  try {
    const reader = SqliteStore.open({ dataDir: dir, countCacheEntries: 10, collections: CORE_COLLECTIONS });
    const writer = SqliteStore.open({ dataDir: dir, countCacheEntries: 10, collections: CORE_COLLECTIONS });
    await writer.collection('jobs').insertMany(jobs);
    assert.equal((await reader.collection('jobs').search(complete)).total, 2);
    await writer.collection('jobs').insertOne(newJob(4));
    assert.equal((await reader.collection('jobs').search(complete)).total, 3);
    await writer.collection('jobs').deleteOne(newJob(4)['_id'] as string);
    assert.equal((await reader.collection('jobs').search(complete)).total, 2);
    await reader.close();
    await writer.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with the cache off every total is counted', async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', countCacheEntries: 0, collections: CORE_COLLECTIONS });
  const col = store.collection('jobs');
  await col.insertMany(jobs);
  assert.equal((await col.search(complete)).total, 2);
  await col.insertOne(newJob(5));
  assert.equal((await col.search(complete)).total, 3);
  await store.close();
});
