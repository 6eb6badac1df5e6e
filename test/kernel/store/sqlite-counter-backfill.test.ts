/**
 * The value counters of an upgraded store: a store written before they
 * existed is back-filled at open, batch by batch, and writes made between
 * batches (by this or another process) are counted exactly once. Two
 * processes writing the same file at once leave counters equal to a recount.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { backfillBatch, ensureValueCounters } from '../../../kernel/store/sqlite/counters.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Doc } from '../../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const HOUR = 3_600_000;
const STATUSES = ['running', 'complete', 'error', 'paused'];

function job(i: number): Doc {
  return { _id: i.toString(16).padStart(24, '0'), name: `wf ${i % 3}`, status: STATUSES[i % 4], metrics: { start_time: 1_790_000_000_000 + i * 977_123 } };
}

/** What the counters should hold, recounted from the rows with the same bucketing as docs/search.md describes. */
function recount(db: Database.Database, coll: string): Map<string, number> {
  const rows = db.prepare(`SELECT json_extract(doc, '$.status') AS s, json_extract(doc, '$.name') AS n, json_extract(doc, '$.metrics.start_time') AS t FROM "${coll}"`).all() as Array<{ s: unknown; n: unknown; t: unknown }>;
  const out = new Map<string, number>();
  const add = (k: string): void => void out.set(k, (out.get(k) ?? 0) + 1);
  for (const r of rows) {
    if (r.s !== null) add(`status|${String(r.s)}`);
    if (r.n !== null) add(`name|${String(r.n)}`);
    if (typeof r.t === 'number') {
      for (const size of [24 * HOUR, HOUR, 60_000, 1000]) add(`metrics.start_time@${size}|${Math.floor(r.t / size)}`);
    }
  }
  return out;
}

function counters(db: Database.Database, coll: string): Map<string, number> {
  const rows = db.prepare(`SELECT field, bucket, n FROM _value_counts WHERE coll = ?`).all(coll) as Array<{ field: string; bucket: unknown; n: number }>;
  return new Map(rows.map((r) => [`${r.field}|${String(r.bucket)}`, r.n]));
}

function sorted(m: Map<string, number>): Array<[string, number]> {
  return [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

test('a store without counters is back-filled at open, and writes between batches are counted once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-backfill-'));
  try {
    const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await store.collection('jobs').insertMany(Array.from({ length: 200 }, (_, i) => job(i + 1)));
    await store.close();
    const db = new Database(join(dir, 'iap.sqlite'));
    // As a store written by the previous version: no counter triggers, no counters.
    for (const s of ['ad', 'au']) db.exec(`DROP TRIGGER "jobs__values_${s}"`);
    db.exec(`DELETE FROM _value_counts; DELETE FROM _counter_state`);
    db.transaction(() => ensureValueCounters(db, 'jobs'))();
    const update = db.prepare(`UPDATE jobs SET doc = jsonb_set(doc, '$.status', ?, '$.name', ?) WHERE seq = ?`);
    let batches = 0;
    while (!backfillBatch(db, 'jobs', 30)) {
      batches += 1;
      // Rows below the mark, just above it and far above it change between batches.
      update.run('canceled', `renamed ${batches}`, batches * 30 - 5);
      update.run('error', 'moved', batches * 30 + 7);
      db.prepare(`DELETE FROM jobs WHERE seq = ?`).run(batches * 30 + 2);
      db.prepare(`DELETE FROM jobs WHERE seq = ?`).run(batches * 15);
      db.prepare(`INSERT INTO jobs (id, doc) VALUES (?, jsonb(?))`).run(`new${batches}`, JSON.stringify({ ...job(1000 + batches), _id: `new${batches}` }));
    }
    assert.ok(batches >= 6, `back-filled in ${batches} batches`);
    update.run('paused', 'after', 3);
    assert.deepEqual(sorted(counters(db, 'jobs')), sorted(recount(db, 'jobs')));
    db.close();

    // Opening again back-fills nothing more and answers totals from the counters.
    const reopened = SqliteStore.open({ dataDir: dir, backfillBatchRows: 7, collections: CORE_COLLECTIONS });
    const where = { kind: 'compare', op: 'eq', field: (await import('../../../kernel/search/fields.ts')).jobs.fields.get('status')!, value: 'canceled' } as const;
    const check = new Database(join(dir, 'iap.sqlite'), { readonly: true });
    const canceled = (check.prepare(`SELECT count(*) AS n FROM jobs WHERE json_extract(doc, '$.status') = 'canceled'`).get() as { n: number }).n;
    check.close();
    assert.ok(canceled > 0);
    assert.equal(reopened.collection('jobs').countedTotal(where), canceled);
    await reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an old store is back-filled by the opening itself, in small batches', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-backfill-'));
  try {
    const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await store.collection('jobs').insertMany(Array.from({ length: 100 }, (_, i) => job(i + 1)));
    await store.close();
    const db = new Database(join(dir, 'iap.sqlite'));
    for (const s of ['ad', 'au']) db.exec(`DROP TRIGGER "jobs__values_${s}"`);
    db.exec(`DELETE FROM _value_counts; DELETE FROM _counter_state`);
    db.close();
    const reopened = SqliteStore.open({ dataDir: dir, backfillBatchRows: 9, collections: CORE_COLLECTIONS });
    await reopened.close();
    const after = new Database(join(dir, 'iap.sqlite'), { readonly: true });
    assert.deepEqual(sorted(counters(after, 'jobs')), sorted(recount(after, 'jobs')));
    after.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function runWriter(dir: string, seed: number, ops: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/kernel/store/counter-writer.ts', dir, String(seed), String(ops)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`writer ${seed} exited ${code}: ${err}`))));
  });
}

test('two processes writing the same file at once leave counters equal to a recount', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-counters-2p-'));
  try {
    const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await store.collection('jobs').insertMany(Array.from({ length: 100 }, (_, i) => job(i + 1)));
    await store.close();
    await Promise.all([runWriter(dir, 1, 600), runWriter(dir, 2, 600)]);
    const db = new Database(join(dir, 'iap.sqlite'), { readonly: true });
    const jobs = (db.prepare(`SELECT count(*) AS n FROM jobs`).get() as { n: number }).n;
    assert.notEqual(jobs, 100, 'the writers changed the store');
    assert.deepEqual(sorted(counters(db, 'jobs')), sorted(recount(db, 'jobs')));
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
