/**
 * The walk a start after a crash makes over running jobs with claimed
 * iterations (`jobsInFlight`). Jobs resumed from one page finish and leave
 * the set while the walk goes on, so it pages after the last `_id` it was
 * given rather than by `skip`; and a job may hold megabytes, so a page holds
 * at most WALK_PAGE_BYTES rather than 500 jobs whatever they weigh.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WALK_PAGE_BYTES } from '../../../kernel/store/limits.ts';
import { newObjectId } from '../../../kernel/store/ids.ts';
import type { DocCollection, Store } from '../../../kernel/store/types.ts';
import { jobsInFlight } from '../../../core/src/engine/stored.ts';
import { jobs } from '../../fixtures/search-data.ts';
import { openTestStore } from '../../helpers/stores.ts';

const inFlight = (i: number, extra: Record<string, unknown> = {}) => ({ ...jobs[0]!, _id: newObjectId(1_700_000_000_000 + i), name: `in-flight-${i}`, status: 'running', _inflight: true, ...extra });

/** The store as the walk sees it, with the number of jobs each page it read gave. */
function countingPages(store: Store): { store: Store; pages: number[] } {
  const pages: number[] = [];
  const collection = (name: string): DocCollection => {
    const real = store.collection(name);
    if (name !== 'jobs') return real;
    return Object.assign(Object.create(real) as DocCollection, {
      findPage: async (query: Parameters<DocCollection['findPage']>[0]) => {
        const docs = await real.findPage(query);
        pages.push(docs.length);
        return docs;
      },
    });
  };
  return { store: Object.assign(Object.create(store) as Store, { collection }), pages };
}

test('every job in flight is given once, though each leaves the set as it is resumed', async () => {
  const store = await openTestStore();
  try {
    const count = 1_234;
    await store.collection('jobs').insertMany(Array.from({ length: count }, (_, i) => inFlight(i)));
    // Not in flight, or no longer running: never given.
    await store.collection('jobs').insertMany([inFlight(5_000, { _inflight: false }), inFlight(5_001, { status: 'complete' })]);
    const seen: string[] = [];
    for await (const job of jobsInFlight(store)) {
      seen.push(job._id);
      // As a resumed job that finishes does, before the walk reads its next page.
      assert.equal(await store.collection('jobs').replaceOne({ ...(await store.collection('jobs').findById(job._id))!, status: 'complete', _inflight: false }), true);
    }
    assert.equal(seen.length, count);
    assert.equal(new Set(seen).size, count);
    assert.deepEqual(seen, [...seen].sort(), 'in _id order');
  } finally {
    await store.close();
  }
});

test('large jobs in flight are read a bounded number of bytes at a time, and every one is given', { timeout: 60_000 }, async () => {
  const store = await openTestStore();
  try {
    // 100 jobs of 1 MB: 100 MB in one page of 500 before; at most 64 MiB now.
    const blob = 'x'.repeat(1_000_000);
    const count = 100;
    for (let i = 0; i < count; i += 10) await store.collection('jobs').insertMany(Array.from({ length: 10 }, (_, k) => inFlight(i + k, { variables: { blob } })));
    const counted = countingPages(store);
    let given = 0;
    for await (const job of jobsInFlight(counted.store)) {
      assert.equal((job.variables as { blob: string }).blob.length, blob.length);
      given += 1;
    }
    assert.equal(given, count);
    const mostPerPage = Math.floor(WALK_PAGE_BYTES / blob.length);
    assert.ok(counted.pages[0]! >= mostPerPage - 2 && counted.pages[0]! <= mostPerPage, `the first page held ${counted.pages[0]} jobs`);
    assert.deepEqual(counted.pages.slice(1), [count - counted.pages[0]!, 0]);
  } finally {
    await store.close();
  }
});
