/**
 * The embedded store's update triggers (the value counters', the text
 * index's) do their work only when an update changes what they keep: a
 * counted column, the indexed text. Most updates change neither (a job's
 * progress, a task's groups), and rewriting 10,000 tasks' groups spent two
 * thirds of its time in the counters' trigger. A store made before gets the
 * new triggers at open, with its counts and text entries as they were, and
 * both stay exact afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Doc } from '../../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';
import { TEST_LIMITS } from '../../helpers/search-fixture.ts';
import { tempDir } from '../../faults/support.ts';

const STATUSES = ['running', 'complete', 'error'];
const job = (n: number): Doc => ({ _id: n.toString(16).padStart(24, '0'), name: `job ${n % 5}`, status: STATUSES[n % 3], description: `router ${n % 2 === 0 ? 'upgrade' : 'audit'} ${n}`, groups: ['g1'], metrics: { start_time: 1_700_000_000_000 + n * 60_000 } });

async function inDir(fn: (dir: string, file: string) => Promise<void>): Promise<void> {
  const dir = tempDir('update-triggers');
  try {
    await fn(dir.path, join(dir.path, 'iap.sqlite'));
  } finally {
    dir.remove();
  }
}

/** What the triggers keep: the value counts, and the text index's stored blocks. */
function kept(file: string): { counts: unknown[]; textBytes: number } {
  const db = new Database(file, { readonly: true });
  try {
    return {
      counts: db.prepare(`SELECT field, bucket, n FROM _value_counts WHERE coll = 'jobs' ORDER BY field, bucket`).all(),
      textBytes: db.prepare('SELECT sum(length(block)) FROM jobs__fts_data').pluck().get() as number,
    };
  } finally {
    db.close();
  }
}

function triggers(file: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'jobs' ORDER BY name`).all();
  } finally {
    db.close();
  }
}

/** Every covered total equals a plain count, and text matches equal a scan of the descriptions. */
async function exact(store: SqliteStore, docs: readonly Doc[]): Promise<void> {
  const jobs = store.collection('jobs');
  for (const qs of [...STATUSES.map((s) => `equals[status]=${s}`), 'starts-with[name]=job 1', 'gte[metrics.start_time]=1700000600000']) {
    const { where } = parseSearch(jobType, qs, TEST_LIMITS);
    const counted = jobs.countedTotal(where);
    assert.notEqual(counted, null, `${qs} is covered by the counters`);
    assert.equal(counted, (await jobs.findIds(where, 10_000)).length, qs);
  }
  for (const word of ['upgrade', 'audit', 'patched']) {
    const found = await jobs.search(parseSearch(jobType, `contains[description]=${word}&limit=1000`, TEST_LIMITS));
    assert.equal(found.total, docs.filter((d) => String(d['description']).includes(word)).length, word);
  }
}

test('an update that changes no counted field and leaves the text as it was writes nothing to the counters or the text index', () => inDir(async (dir, file) => {
  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  const docs = Array.from({ length: 200 }, (_, n) => job(n));
  await store.collection('jobs').insertMany(docs);
  const before = kept(file);
  for (const doc of docs) assert.equal(await store.collection('jobs').replaceOne({ ...doc, groups: ['g2'], variables: { touched: true } }), true);
  assert.deepEqual(kept(file), before);
  await exact(store, docs);
  await store.close();
}));

test('a store made before gets this version\'s update triggers at open; its counts and text stay exact through every kind of update', () => inDir(async (dir, file) => {
  let store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  const docs = Array.from({ length: 120 }, (_, n) => job(n));
  await store.collection('jobs').insertMany(docs);
  await store.close();
  const current = triggers(file);
  // As the earlier version wrote them: the same triggers without their test for a change.
  const db = new Database(file);
  for (const { name, sql } of current as Array<{ name: string; sql: string }>) {
    const earlier = sql.replace(/ AND \((old\."[^"]+" IS NOT new\."[^"]+"( OR )?)+\)/, '').replace(/ WHEN old\."[^"]+" IS NOT new\."[^"]+"/, '');
    db.exec(`DROP TRIGGER "${name}"`);
    db.exec(earlier);
  }
  db.close();
  assert.notDeepEqual(triggers(file), current, 'the earlier triggers differ');
  const before = kept(file);
  store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  assert.deepEqual(triggers(file), current);
  assert.deepEqual(kept(file), before, 'counts and text entries are kept as they were');
  // Counted fields and text changed on some, only other fields on the rest.
  const after = docs.map((d, n) => (n % 4 === 0 ? { ...d, status: 'canceled', description: `patched ${n}` } : n % 4 === 1 ? { ...d, name: 'renamed', metrics: { start_time: 1 } } : { ...d, groups: [] }));
  for (const doc of after) assert.equal(await store.collection('jobs').replaceOne(doc), true);
  await exact(store, after);
  await store.close();
}));
