/**
 * Inserts are counted once per write transaction by the store's writer
 * (kernel/store/sqlite/insert-counts.ts), not by a trigger per row: after
 * random batches mixing inserts with updates, deletes and field changes of
 * the same rows, batches refused half-way (a moved revision, a duplicate id)
 * and single writes, the row counts and value counters equal a recount of the
 * rows, and inserts of odd values are counted as the back-fill's SQL counts
 * them. A store made by a version with per-row insert triggers loses them at
 * open and keeps counting exactly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { backfillAll } from '../../../kernel/store/sqlite/counters.ts';
import type { Doc, WriteOp } from '../../../kernel/store/types.ts';
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const SEED = Number(process.env['COUNTER_SEED'] ?? 20261127);
const HOUR = 3_600_000;
const BASE = Date.UTC(2026, 10, 27);
const STATUSES = ['running', 'complete', 'error'];
const IDS = Array.from({ length: 12 }, (_, i) => `id${i}`);

/** What the counters should hold, recounted from the rows (docs/search.md, "How totals are computed"). */
function recount(db: Database.Database, coll: string): Array<[string, number]> {
  const rows = db.prepare(`SELECT json_extract(doc, '$.status') AS s, json_extract(doc, '$.name') AS n, json_extract(doc, '$.metrics.start_time') AS t FROM "${coll}"`).all() as Array<{ s: unknown; n: unknown; t: unknown }>;
  const out = new Map<string, number>();
  const add = (k: string): void => void out.set(k, (out.get(k) ?? 0) + 1);
  for (const r of rows) {
    if (r.s !== null) add(`status|${String(r.s)}`);
    if (r.n !== null) add(`name|${String(r.n)}`);
    if (typeof r.t === 'number') for (const size of [24 * HOUR, HOUR, 60_000, 1000]) add(`metrics.start_time@${size}|${Math.floor(r.t / size)}`);
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

function counters(db: Database.Database, coll: string): Array<[string, number]> {
  const rows = db.prepare(`SELECT field, bucket, n FROM _value_counts WHERE coll = ?`).all(coll) as Array<{ field: string; bucket: unknown; n: number }>;
  return rows.map((r): [string, number] => [`${r.field}|${String(r.bucket)}`, r.n]).sort(([a], [b]) => (a < b ? -1 : 1));
}

function assertCounted(db: Database.Database, collections: readonly string[]): void {
  for (const coll of collections) {
    const rows = (db.prepare(`SELECT count(*) AS n FROM "${coll}"`).get() as { n: number }).n;
    assert.equal((db.prepare(`SELECT n FROM _row_counts WHERE collection = ?`).get(coll) as { n: number }).n, rows, `${coll}: row count`);
    if (coll === 'jobs' || coll === 'tasks') assert.deepEqual(counters(db, coll), recount(db, coll), `${coll}: value counters`);
  }
}

interface DocSpec {
  id: string;
  status: string;
  name: string;
  second: number;
}
const docArb: fc.Arbitrary<DocSpec> = fc.record({
  id: fc.constantFrom(...IDS),
  status: fc.constantFrom(...STATUSES),
  name: fc.constantFrom('wf a', 'wf b', 'é'),
  second: fc.integer({ min: 0, max: 4000 }),
});
const toDoc = (d: DocSpec, rev = 0): Doc => ({ _id: d.id, status: d.status, name: d.name, metrics: { start_time: BASE + d.second * 1000 }, _rev: rev });

type Step =
  | { kind: 'insert'; coll: 'jobs' | 'tasks'; doc: DocSpec }
  | { kind: 'replace'; coll: 'jobs' | 'tasks'; doc: DocSpec }
  | { kind: 'replaceIfRev'; doc: DocSpec; expected: number | null }
  | { kind: 'setFields'; coll: 'jobs' | 'tasks'; status: string }
  | { kind: 'delete'; coll: 'jobs' | 'tasks'; id: string };
const collArb = fc.constantFrom<'jobs' | 'tasks'>('jobs', 'tasks');
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('insert' as const), coll: collArb, doc: docArb }) },
  fc.record({ kind: fc.constant('replace' as const), coll: collArb, doc: docArb }),
  fc.record({ kind: fc.constant('replaceIfRev' as const), doc: docArb, expected: fc.constantFrom(null, 0, 1) }),
  fc.record({ kind: fc.constant('setFields' as const), coll: collArb, status: fc.constantFrom(...STATUSES) }),
  fc.record({ kind: fc.constant('delete' as const), coll: collArb, id: fc.constantFrom(...IDS) }),
);

const STATUS = jobType.fields.get('status')!;
function op(step: Step): WriteOp {
  switch (step.kind) {
    case 'insert':
      return { op: 'insert', collection: step.coll, doc: toDoc(step.doc) };
    case 'replace':
      return { op: 'replace', collection: step.coll, doc: toDoc(step.doc) };
    case 'replaceIfRev':
      return { op: 'replaceIfRev', collection: 'jobs', doc: toDoc(step.doc, 1), expectedRev: step.expected };
    case 'setFields':
      return { op: 'setFields', collection: step.coll, where: { kind: 'compare', op: 'eq', field: STATUS, value: 'running' }, fields: { status: step.status } };
    case 'delete':
      return { op: 'delete', collection: step.coll, id: step.id };
  }
}

test('counters equal a recount after random batches, refused batches and single writes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.oneof(fc.array(stepArb, { minLength: 1, maxLength: 12 }), stepArb), { maxLength: 25 }), async (writes) => {
      const store = SqliteStore.open({ dataDir: ':memory:', countCacheEntries: 0, collections: CORE_COLLECTIONS });
      try {
        for (const w of writes) {
          if (Array.isArray(w)) {
            // A batch may be refused half-way (a moved revision, a duplicate id): nothing of it, counts included, stays.
            await store.batch(w.map(op)).catch(() => false);
          } else if (w.kind === 'insert') {
            await store.collection(w.coll).insertOne(toDoc(w.doc)).catch(() => undefined);
          } else if (w.kind === 'delete') {
            await store.collection(w.coll).deleteOne(w.id);
          } else if (w.kind === 'replace') {
            await store.collection(w.coll).replaceOne(toDoc(w.doc));
          } else {
            await store.batch([op(w)]);
          }
        }
        await store.collection('tasks').insertMany([toDoc({ id: 'many1', status: 'running', name: 'wf a', second: 1 }), toDoc({ id: 'many2', status: 'complete', name: 'wf b', second: 2 })]);
        // A duplicate in the middle refuses the whole insertMany, and its first document is not counted.
        await assert.rejects(store.collection('tasks').insertMany([toDoc({ id: 'many3', status: 'error', name: 'wf a', second: 3 }), toDoc({ id: 'many1', status: 'error', name: 'wf a', second: 3 })]));
        const db = (store as unknown as { db: Database.Database }).db;
        assertCounted(db, ['jobs', 'tasks']);
      } finally {
        await store.close();
      }
    }),
    { seed: SEED, numRuns: 150 },
  );
});

test('an unfiltered search total counts what a batch inserted, and nothing of a batch refused', async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', countCacheEntries: 0, collections: CORE_COLLECTIONS });
  try {
    const tasks = store.collection('tasks');
    const doc = (id: string): Doc => toDoc({ id, status: 'complete', name: 'wf a', second: 5 });
    assert.equal(await store.batch([{ op: 'insert', collection: 'jobs', doc: doc('j1') }, ...['t1', 't2', 't3'].map((id): WriteOp => ({ op: 'insert', collection: 'tasks', doc: doc(id) }))]), true);
    assert.equal((await tasks.search({ where: null, sort: [], skip: 0, limit: 0 })).total, 3);
    assert.equal(await store.batch([{ op: 'insert', collection: 'tasks', doc: doc('t4') }, { op: 'replaceIfRev', collection: 'jobs', doc: doc('j1'), expectedRev: 7 }]), false);
    await assert.rejects(store.batch([{ op: 'insert', collection: 'tasks', doc: doc('t5') }, { op: 'insert', collection: 'tasks', doc: doc('t1') }]));
    assert.equal((await tasks.search({ where: null, sort: [], skip: 0, limit: 0 })).total, 3);
    assert.equal(tasks.countedTotal({ kind: 'compare', op: 'eq', field: STATUS, value: 'complete' }), 3);
    assert.equal(await store.increment('login_attempts', 'a', Date.now() + 60_000, Date.now()), 1);
    assert.equal(await store.increment('login_attempts', 'a', Date.now() + 60_000, Date.now()), 2);
    assert.equal(await store.collection('login_attempts').count(null), 1);
  } finally {
    await store.close();
  }
});

test('a store with the per-row insert triggers of an earlier version loses them at open and counts on exactly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-insert-counts-'));
  try {
    const first = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await first.collection('jobs').insertMany([1, 2, 3].map((i) => toDoc({ id: `old${i}`, status: 'running', name: 'wf a', second: i })));
    await first.close();
    const db = new Database(join(dir, 'iap.sqlite'));
    // As the earlier version left it: a trigger adding every inserted row to the row count (the counts stay as they are).
    db.exec(`CREATE TRIGGER "jobs__count_ai" AFTER INSERT ON jobs BEGIN UPDATE _row_counts SET n = n + 1 WHERE collection = 'jobs'; END`);
    db.close();
    const reopened = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await reopened.collection('jobs').insertOne(toDoc({ id: 'new1', status: 'complete', name: 'wf b', second: 9 }));
    assert.equal(await reopened.collection('jobs').count(null), 4, 'each insert counted once');
    await reopened.close();
    const after = new Database(join(dir, 'iap.sqlite'), { readonly: true });
    // The text index's and the change marks' insert triggers are not counters.
    const triggers = after.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%\\_ai' ESCAPE '\\' AND name NOT LIKE '%fts%' AND name NOT LIKE '%\\_mark\\_ai' ESCAPE '\\'`).all();
    assert.deepEqual(triggers, []);
    assertCounted(after, ['jobs', 'tasks']);
    after.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Values whose stored form SQL reads differently from what JS holds (types, fractions, limits, toJSON), beside plain ones. */
class Stamp {
  constructor(readonly at: number) {}
}
const oddValue = fc.oneof(
  fc.constantFrom<unknown>('complete', 'é', '\u{1f600}x', '\ud800', 'a\u0000b', '', null, undefined, true, 0, -0, 3, 2.5, -1.5, 2 ** 50, 2 ** 50 - 1, -(2 ** 50) + 1, 2 ** 53 + 2, 1e21, 1.5e300, Number.NaN, Number.POSITIVE_INFINITY),
  fc.integer({ min: BASE - 86_400_000, max: BASE + 86_400_000 }),
  fc.integer({ min: -(2 ** 49), max: 2 ** 49 }),
  fc.double({ noNaN: true, min: -1e16, max: 1e16 }),
  fc.constantFrom<unknown>({ a: 1 }, [1, 2], new Stamp(BASE), { toJSON: () => 'x' }, new Date(BASE)),
);
const metricsArb = fc.oneof(
  { weight: 4, arbitrary: oddValue.map((start_time): unknown => ({ start_time })) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, null, 'soon', [BASE], { toJSON: () => ({ start_time: 5 }), start_time: BASE }) },
);

test('inserts are counted as the back-fill counts the same rows, whatever their values', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(fc.record({ status: oddValue, name: oddValue, metrics: metricsArb }), { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 6 }), async (batches) => {
      const store = SqliteStore.open({ dataDir: ':memory:', countCacheEntries: 0, collections: CORE_COLLECTIONS });
      let id = 0;
      try {
        for (const batch of batches) {
          const ops = batch.map((fields): WriteOp => {
            const doc: Doc = { _id: `d${id++}` };
            for (const [key, value] of Object.entries(fields)) if (value !== undefined) doc[key] = value;
            return { op: 'insert', collection: id % 2 === 0 ? 'jobs' : 'tasks', doc };
          });
          assert.equal(await store.batch(ops), true);
        }
        const db = (store as unknown as { db: Database.Database }).db;
        for (const coll of ['jobs', 'tasks']) {
          const kept = counters(db, coll);
          // The reference is the back-fill's SQL, which reads each value back as the triggers did.
          db.prepare(`DELETE FROM _value_counts WHERE coll = ?`).run(coll);
          db.prepare(`UPDATE _counter_state SET upto = 0 WHERE coll = ?`).run(coll);
          backfillAll(db, [coll], 1000);
          assert.deepEqual(kept, counters(db, coll), coll);
        }
      } finally {
        await store.close();
      }
    }),
    { seed: SEED, numRuns: 200 },
  );
});
