/**
 * The embedded store's text index and deletions (text-tidy.ts, schema.ts):
 * no delete rewrites a segment on the spot, and once a share of the
 * collection is deleted the index drops the deleted entries in the
 * background. The reference is a second FTS5 index, built on its own
 * connection from the documents still in the store: the tidied index must
 * match the same rows for every word and be about its size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';
import { TEST_LIMITS } from '../../helpers/search-fixture.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { TEXT_TOKENIZER } from '../../../kernel/store/sqlite/schema.ts';
import type { TextTidyOptions } from '../../../kernel/store/sqlite/text-tidy.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';
import { nextTurn } from '../../helpers/wait.ts';

const WORDS = ['upgrade', 'router', 'circuit', 'bgp', 'golden', 'config', 'drift', 'report', 'retire', 'nightly', 'café'];
const idOf = (n: number): string => n.toString(16).padStart(24, '0');
const job = (n: number) => ({ _id: idOf(n), name: `job ${n}`, status: 'complete', description: `${WORDS[n % 11]} ${WORDS[(n * 7) % 11]} on bdr-rtr-${n % 97}.atl CKT-${n}` });

/** Runs a test in a directory of its own, removed after; `file` is the store's database file there. */
function inDir(fn: (dir: string, file: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'text-tidy-'));
    try {
      await fn(dir, join(dir, 'iap.sqlite'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** A store whose first 3,000 jobs went in 25 at a time, after which the 2,400 oldest were deleted 25 at a time. */
async function churned(dir: string, tidy: TextTidyOptions): Promise<SqliteStore> {
  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS, textTidy: tidy });
  for (let n = 0; n < 3000; n += 25) {
    await store.batch(Array.from({ length: 25 }, (_, i) => ({ op: 'insert' as const, collection: 'jobs', doc: job(n + i) })));
  }
  for (let n = 0; n < 2400; n += 25) {
    await store.batch(Array.from({ length: 25 }, (_, i) => ({ op: 'delete' as const, collection: 'jobs', id: idOf(n + i) })));
  }
  return store;
}

/** The text index's bytes, and the rowids it matches per word, read on a connection of its own. */
function readIndex(file: string): { bytes: number; matches: Map<string, number[]> } {
  const db = new Database(file, { readonly: true });
  try {
    const bytes = db.prepare('SELECT sum(length(block)) FROM jobs__fts_data').pluck().get() as number;
    const match = db.prepare('SELECT rowid FROM jobs__fts WHERE jobs__fts MATCH ? ORDER BY rowid').pluck();
    return { bytes, matches: new Map(WORDS.map((w) => [w, match.all(`"${w}"`) as number[]])) };
  } finally {
    db.close();
  }
}

/** The reference: the same kind of index built from the documents still in the store, merged into one segment. */
function referenceIndex(file: string): { bytes: number; matches: Map<string, number[]> } {
  const source = new Database(file, { readonly: true });
  const ref = new Database(':memory:');
  try {
    ref.exec(`CREATE VIRTUAL TABLE f USING fts5(body, content='', contentless_delete=1, tokenize='${TEXT_TOKENIZER}')`);
    const insert = ref.prepare('INSERT INTO f (rowid, body) VALUES (?, ?)');
    const rows = source.prepare(`SELECT seq, json_extract(doc, '$.description') AS d FROM jobs`).all() as Array<{ seq: number; d: string }>;
    ref.transaction(() => rows.forEach((r) => insert.run(r.seq, r.d)))();
    ref.exec(`INSERT INTO f (f) VALUES ('optimize')`);
    const match = ref.prepare('SELECT rowid FROM f WHERE f MATCH ? ORDER BY rowid').pluck();
    return { bytes: ref.prepare('SELECT sum(length(block)) FROM f_data').pluck().get() as number, matches: new Map(WORDS.map((w) => [w, match.all(`"${w}"`) as number[]])) };
  } finally {
    ref.close();
    source.close();
  }
}

test('a new text index never rewrites a segment inside a delete, and a store made before gets that setting at open', inDir(async (dir, file) => {
  const deletemerge = (): unknown => {
    const db = new Database(file);
    try {
      return (db.prepare(`SELECT v FROM jobs__fts_config WHERE k = 'deletemerge'`).get() as { v: unknown } | undefined)?.v;
    } finally {
      db.close();
    }
  };
  await SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS }).close();
  assert.equal(deletemerge(), 0);
  // As a store made before this setting: FTS5's default (a segment a tenth tombstones is rewritten at once).
  const db = new Database(file);
  db.exec(`INSERT INTO jobs__fts (jobs__fts, rank) VALUES ('deletemerge', 10)`);
  db.close();
  assert.equal(deletemerge(), 10);
  await SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS }).close();
  assert.equal(deletemerge(), 0);
}));

test('once a share of the jobs is deleted, the text index drops their entries: it matches what an index of the remaining jobs matches, at about its size', inDir(async (dir, file) => {
  const store = await churned(dir, { minDeletes: 300, share: 0.1, pagesPerStep: 8 });
  const figures = await store.collection('jobs').tidyFigures();
  const index = readIndex(file);
  const reference = referenceIndex(file);
  await store.close();
  assert.ok(figures && figures.tidies >= 1, `the tidy ran (${JSON.stringify(figures)})`);
  assert.equal(figures.lastError, null);
  assert.deepEqual(index.matches, reference.matches);
  assert.ok([...reference.matches.values()].every((rows) => rows.length > 0), 'every word still matches some job');
  // The deletes after the last tidy (fewer than its share) may still hold entries.
  assert.ok(index.bytes <= reference.bytes * 1.5, `index ${index.bytes} bytes against ${reference.bytes} for the remaining jobs alone`);
}));

test('without the tidy the same deletes leave the text index far larger than the remaining jobs need (the case the tidy exists for)', inDir(async (dir, file) => {
  const store = await churned(dir, { minDeletes: Number.MAX_SAFE_INTEGER, share: 1, pagesPerStep: 8 });
  const figures = await store.collection('jobs').tidyFigures();
  const index = readIndex(file);
  const reference = referenceIndex(file);
  // A one-word total is read from the index's statistics (text-totals.ts): exact with the tombstones in place too.
  for (const word of WORDS) {
    const { where } = parseSearch(jobType, `contains[description]=${encodeURIComponent(word)}`, TEST_LIMITS);
    assert.equal(await store.collection('jobs').count(where), reference.matches.get(word)!.length, `total of contains[description]=${word}`);
  }
  await store.close();
  assert.equal(figures?.tidies, 0);
  assert.deepEqual(index.matches, reference.matches, 'tombstoned entries never match, tidied or not');
  assert.ok(index.bytes > reference.bytes * 2, `index ${index.bytes} bytes against ${reference.bytes} for the remaining jobs alone`);
}));

test('deletes are counted in the store, so a tidy comes after a restart too (a command that archives and exits)', inDir(async (dir, file) => {
  const tidy = { minDeletes: 300, share: 0.1, pagesPerStep: 8 };
  const first = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS, textTidy: tidy });
  for (let n = 0; n < 3000; n += 25) await first.batch(Array.from({ length: 25 }, (_, i) => ({ op: 'insert' as const, collection: 'jobs', doc: job(n + i) })));
  // 200 deletes: under the 300 a tidy needs.
  for (let n = 0; n < 200; n += 25) await first.batch(Array.from({ length: 25 }, (_, i) => ({ op: 'delete' as const, collection: 'jobs', id: idOf(n + i) })));
  assert.equal((await first.collection('jobs').tidyFigures())?.tidies, 0);
  await first.close();
  const second = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS, textTidy: tidy });
  try {
    // 150 more in a new process: 350 counted in all, past 300 and a tenth of the 2,650 left.
    for (let n = 200; n < 350; n += 25) await second.batch(Array.from({ length: 25 }, (_, i) => ({ op: 'delete' as const, collection: 'jobs', id: idOf(n + i) })));
    const figures = await second.collection('jobs').tidyFigures();
    assert.equal(figures?.tidies, 1);
    assert.equal(figures?.lastError, null);
    // The finished tidy took the 300 it began at off the count; the 50 deleted after it began stay counted. A delete
    // rolled back (its batch then inserts a job that exists) is not counted.
    await assert.rejects(second.batch([{ op: 'delete', collection: 'jobs', id: idOf(400) }, { op: 'insert', collection: 'jobs', doc: job(401) }]));
    const db = new Database(file, { readonly: true });
    try {
      assert.equal(db.prepare(`SELECT deletes FROM _text_tidy WHERE collection = 'jobs'`).pluck().get(), 50);
    } finally {
      db.close();
    }
  } finally {
    await second.close();
  }
}));

test('settle() waits for a tidy under way to finish, as the archive command does before it exits', inDir(async (dir, file) => {
  const store = await churned(dir, { minDeletes: 300, share: 0.1, pagesPerStep: 1 });
  await store.settle();
  const figures = await store.collection('jobs').tidyFigures();
  const index = readIndex(file);
  const reference = referenceIndex(file);
  await store.close();
  assert.equal(figures?.running, false);
  assert.ok((figures?.tidies ?? 0) >= 1);
  assert.ok(index.bytes <= reference.bytes * 1.5, `index ${index.bytes} bytes against ${reference.bytes}`);
}));

/** FTS5's merge settings and the tidy's claim, read on a connection of their own (a setting absent: FTS5's default). */
function tidyState(file: string): { automerge: number; deletemerge: number; until: number } {
  const db = new Database(file, { readonly: true });
  try {
    const setting = db.prepare(`SELECT v FROM jobs__fts_config WHERE k = ?`).pluck();
    const automerge = (setting.get('automerge') as number | undefined) ?? 4;
    const deletemerge = (setting.get('deletemerge') as number | undefined) ?? 10;
    const until = (db.prepare(`SELECT until FROM _text_tidy WHERE collection = 'jobs'`).pluck().get() as number | undefined) ?? 0;
    return { automerge, deletemerge, until };
  } finally {
    db.close();
  }
}

test('while a tidy runs no write carries its merge on (automatic merging off), and after it automatic merging is back', inDir(async (dir, file) => {
  const store = await churned(dir, { minDeletes: 300, share: 0.1, pagesPerStep: 1 });
  // Between two steps of the tidy (each takes a turn of the event loop).
  await nextTurn();
  const during = tidyState(file);
  await store.settle();
  const after = tidyState(file);
  await store.close();
  assert.equal(during.automerge, 0);
  assert.equal(during.deletemerge, 10, 'segments a tenth tombstones are rewritten, by the tidy only');
  assert.ok(during.until > Date.now(), 'the tidy holds a claim');
  assert.deepEqual(after, { automerge: 4, deletemerge: 0, until: 0 });
}));

test('a tidier that died with automatic merging off: the next store to open puts it back once its claim has run out, not before', inDir(async (dir, file) => {
  const leave = (until: number): void => {
    const db = new Database(file);
    db.exec(`INSERT INTO jobs__fts (jobs__fts, rank) VALUES ('automerge', 0)`);
    db.exec(`INSERT INTO jobs__fts (jobs__fts, rank) VALUES ('deletemerge', 10)`);
    db.prepare(`INSERT INTO _text_tidy (collection, deletes, until) VALUES ('jobs', 0, ?) ON CONFLICT (collection) DO UPDATE SET until = excluded.until`).run(until);
    db.close();
  };
  await SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS }).close();
  leave(Date.now() + 60_000);
  await SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS }).close();
  assert.equal(tidyState(file).automerge, 0, 'a claim still running: its tidier may be alive');
  leave(Date.now() - 1);
  await SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS }).close();
  assert.equal(tidyState(file).automerge, 4);
  assert.equal(tidyState(file).deletemerge, 0);
}));

test('a tidy claimed by another process is left to it: no second tidy of the same index at once', inDir(async (dir, file) => {
  const first = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  await first.close();
  const other = new Database(file);
  other.prepare(`INSERT INTO _text_tidy (collection, deletes, until) VALUES ('jobs', 0, ?)`).run(Date.now() + 60_000);
  other.close();
  const store = await churned(dir, { minDeletes: 300, share: 0.1, pagesPerStep: 8 });
  const figures = await store.collection('jobs').tidyFigures();
  await store.close();
  assert.deepEqual(figures, { tidies: 0, lastError: null, running: false });
  assert.equal(tidyState(file).automerge, 4, 'automatic merging untouched');
}));

test('closing the store stops a tidy under way, and the index it leaves still answers searches', inDir(async (dir, file) => {
  const store = await churned(dir, { minDeletes: 300, share: 0.1, pagesPerStep: 1 });
  await store.close();
  // Stopped, the tidy put automatic merging back and gave up its claim; its deletes stay counted for the next one.
  assert.deepEqual(tidyState(file), { automerge: 4, deletemerge: 0, until: 0 });
  const reopened = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  try {
    const { where } = parseSearch(jobType, 'contains[description]=router', TEST_LIMITS);
    const found = await reopened.collection('jobs').search({ where, sort: [], skip: 0, limit: 1000 });
    const expected = referenceIndex(file).matches.get('router')!.length;
    assert.ok(expected > 0);
    assert.equal(found.docs.length, expected);
    assert.equal(found.total, expected);
  } finally {
    await reopened.close();
  }
}));
