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
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';
import { jobs } from '../../fixtures/search-data.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';


test('status names missing, misnamed and external indexes, and a build repairs all but the external', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-ix-'));
  try {
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('documents survive closing and reopening the store file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-reopen-'));
  try {
    const a = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await a.collection('jobs').insertMany(jobs);
    await a.close();
    const b = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    assert.equal(await b.collection('jobs').count(null), jobs.length);
    assert.deepEqual(await b.collection('jobs').findById(jobs[2]!['_id'] as string), jobs[2]);
    await b.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a text index missing its triggers counts as missing and is rebuilt whole', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-fts-'));
  try {
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
