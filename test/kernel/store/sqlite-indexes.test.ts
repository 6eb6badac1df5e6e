/**
 * Index status and rebuild on the embedded store, with indexes dropped,
 * renamed and added behind its back the way an operator's script would.
 */
import { TEST_LIMITS } from '../../helpers/search-fixture.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Query } from 'mingo';
import type { AnyObject } from 'mingo/types';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { jobs as jobType, tasks as taskType } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';
import { index } from '../../../kernel/store/collections.ts';
import { jobs, tasks } from '../../fixtures/search-data.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

/** A test with a store directory of its own, removed afterwards whatever the test did. */
function testInDir(name: string, prefix: string, body: (dir: string) => Promise<void>): void {
  test(name, async () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    try {
      await body(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

testInDir('status names missing, misnamed and external indexes, and a build repairs all but the external', 'iap-ix-', async (dir) => {
  const first = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  await first.collection('jobs').insertMany(jobs);
  await first.close();

  const raw = new Database(join(dir, 'iap.sqlite'));
  raw.exec('DROP INDEX "jobs.name_1__id_1"');
  raw.exec('DROP INDEX "jobs.last_updated_-1__id_-1"');
  raw.exec('DROP INDEX "jobs.status_1_name_1__id_1"');
  raw.exec('CREATE INDEX "my_status_index" ON jobs (f_status, f_name, id)');
  raw.exec('CREATE INDEX "ops_type" ON jobs (f_type)');
  raw.exec('DROP TABLE jobs__fts');
  raw.close();

  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  const jobsCol = store.collection('jobs');
  const before = await jobsCol.indexStatus();
  assert.deepEqual(before.missing.map((i) => i.name).sort(), ['description_text', 'last_updated_-1__id_-1', 'name_1__id_1']);
  assert.deepEqual(before.misnamed.map((i) => i.name), ['status_1_name_1__id_1']);
  assert.deepEqual(before.external, [{ name: 'ops_type', key: { type: 1 } }]);
  assert.equal(before.indexed, false);

  const after = await jobsCol.buildIndexes();
  assert.deepEqual(after, { missing: [], misnamed: [], external: [{ name: 'ops_type', key: { type: 1 } }], indexed: true });
  // The rebuilt text index covers documents written before it existed.
  const found = await jobsCol.search(parseSearch(jobType, 'contains[description]=firewall', TEST_LIMITS));
  assert.equal(found.total, 1);
  await store.close();
});

testInDir('documents survive closing and reopening the store file', 'iap-reopen-', async (dir) => {
  const a = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  await a.collection('jobs').insertMany(jobs);
  await a.close();
  const b = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  assert.equal(await b.collection('jobs').count(null), jobs.length);
  assert.deepEqual(await b.collection('jobs').findById(jobs[2]!['_id'] as string), jobs[2]);
  await b.close();
});

testInDir('a text index missing its triggers counts as missing and is rebuilt whole', 'iap-fts-', async (dir) => {
  const first = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  await first.collection('jobs').insertMany(jobs.slice(0, 3));
  await first.close();
  const raw = new Database(join(dir, 'iap.sqlite'));
  raw.exec('DROP TRIGGER "jobs__fts_ai"');
  raw.close();

  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  const jobsCol = store.collection('jobs');
  assert.deepEqual((await jobsCol.indexStatus()).missing.map((i) => i.name), ['description_text']);
  await jobsCol.buildIndexes();
  await jobsCol.insertMany(jobs.slice(3));
  const found = await jobsCol.search(parseSearch(jobType, 'contains[description]=firewall', TEST_LIMITS));
  assert.equal(found.total, 1, 'a job written after the rebuild is found by text search');
  await store.close();
});

testInDir('a store made before, with its time indexes descending, keeps them: nothing is missing or rebuilt, and they still serve newest-first', 'iap-ix-desc-', async (dir) => {
  const first = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  await first.collection('jobs').insertMany(jobs);
  await first.close();
  // As versions before this one built it.
  const raw = new Database(join(dir, 'iap.sqlite'));
  raw.exec('DROP INDEX "jobs.metrics.start_time_-1__id_-1"');
  raw.exec('CREATE INDEX "jobs.metrics.start_time_-1__id_-1" ON jobs (f_metrics__start_time DESC, id DESC)');
  raw.close();

  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  const jobsCol = store.collection('jobs');
  assert.deepEqual(await jobsCol.indexStatus(), { missing: [], misnamed: [], external: [], indexed: true });
  assert.deepEqual(await jobsCol.buildIndexes(), { missing: [], misnamed: [], external: [], indexed: true });
  const page = await jobsCol.search(parseSearch(jobType, 'sort=metrics.start_time&order=-1&limit=5', TEST_LIMITS));
  const starts = page.docs.map((d) => (d['metrics'] as { start_time: number }).start_time);
  assert.deepEqual(starts, [...starts].sort((a, b) => b - a));
  await store.close();
  const check = new Database(join(dir, 'iap.sqlite'), { readonly: true });
  const desc = check.prepare(`SELECT desc FROM pragma_index_xinfo('jobs.metrics.start_time_-1__id_-1') WHERE key = 1`).pluck().all();
  check.close();
  assert.deepEqual(desc, [1, 1], 'the descending index was left as it was');
});

testInDir('a store made before, with the task type and description indexes, keeps them as external and still sorts tasks on them', 'iap-ix-tasks-', async (dir) => {
  const retired = [index([['type', 1], ['_id', 1]]), index([['description', 1], ['_id', 1]])];
  // The tasks collection as versions before this one declared it.
  const earlier = CORE_COLLECTIONS.map((c) => (c.name === 'tasks' ? { ...c, indexes: [...c.indexes, ...retired] } : c));
  const first = SqliteStore.open({ dataDir: dir, collections: earlier });
  await first.collection('tasks').insertMany(tasks);
  await first.close();

  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  const tasksCol = store.collection('tasks');
  const status = { missing: [], misnamed: [], external: retired.map((ix) => ({ name: ix.name, key: ix.key })), indexed: true };
  assert.deepEqual(await tasksCol.indexStatus(), status);
  assert.deepEqual(await tasksCol.buildIndexes(), status, 'a build drops no index it did not declare');
  for (const field of ['type', 'description']) {
    const page = await tasksCol.search(parseSearch(taskType, `sort=${field}&order=-1`, TEST_LIMITS));
    // mingo, MongoDB's sort written by others, over the same documents.
    const want = new Query({}).find<Record<string, unknown>>(tasks as AnyObject[]).sort({ [field]: -1, _id: -1 }).all().map((d) => d['_id']);
    assert.deepEqual(page.docs.map((d) => d['_id']), want, field);
  }
  await store.close();
});

testInDir('new documents in time order keep the time indexes\' pages full, as the engine writes them, ten a commit', 'iap-ix-fill-', async (dir) => {
  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  const t0 = Date.UTC(2026, 0, 1);
  for (let commit = 0; commit < 400; commit += 1) {
    const docs = Array.from({ length: 10 }, (_, i) => {
      const n = commit * 10 + i;
      const at = t0 + n * 7;
      return { _id: `01a00000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`, name: ['makeData', 'query', 'evaluation'][i % 3], status: 'complete', type: 'automatic', description: '', job: { _id: (commit + 0x10000).toString(16).padStart(24, '0') }, last_updated: new Date(at).toISOString(), metrics: { start_time: at } };
    });
    await store.batch(docs.map((doc) => ({ op: 'insert' as const, collection: 'tasks', doc })));
  }
  await store.close();
  const raw = new Database(join(dir, 'iap.sqlite'), { readonly: true });
  const pageSize = raw.pragma('page_size', { simple: true }) as number;
  const leaves = raw.prepare(`SELECT name, avg(unused) AS unused, count(*) AS n FROM dbstat WHERE pagetype = 'leaf' AND name IN ('tasks.metrics.start_time_-1__id_-1', 'tasks.last_updated_-1__id_-1') GROUP BY name`).all() as Array<{ name: string; unused: number; n: number }>;
  raw.close();
  assert.equal(leaves.length, 2);
  // Built descending, these leaves were half empty (a new key split the index's first page in two).
  for (const leaf of leaves) assert.ok(leaf.unused < pageSize / 4, `${leaf.name}: ${leaf.unused.toFixed(0)} of ${pageSize} bytes unused a leaf, over ${leaf.n} leaves`);
});
