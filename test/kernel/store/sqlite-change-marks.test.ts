/**
 * The embedded store's change marks (schema.ts, `ensureChangeMark`): a
 * collection declared `changeMarked` has a counter in the file that every
 * write to it moves, from any connection, inside the writing transaction,
 * and nothing else moves. Readers keep copies by it (the workflow lookup),
 * so a mark that moves too seldom answers stale documents, and one that
 * moves with every commit anywhere keeps nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const workflow = (id: string, name: string) => ({ _id: id, name, tasks: {}, transitions: {} });

async function inDir(fn: (dir: string, file: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'iap-marks-'));
  try {
    await fn(dir, join(dir, 'iap.sqlite'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('every kind of write to a marked collection moves its mark, and a refused one does not', async () => {
  await inDir(async (dir) => {
    const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    const workflows = store.collection('workflows');
    const marks = [workflows.changeMark()];
    const moved = (): boolean => {
      const now = workflows.changeMark();
      const changed = now !== marks.at(-1);
      marks.push(now);
      return changed;
    };
    await workflows.insertOne(workflow('w1', 'one'));
    assert.ok(moved(), 'insert');
    await workflows.replaceOne({ ...workflow('w1', 'one'), description: 'changed' });
    assert.ok(moved(), 'replace');
    await store.batch([{ op: 'replace', collection: 'workflows', doc: workflow('w1', 'one') }]);
    assert.ok(moved(), 'batch');
    await workflows.deleteOne('w1');
    assert.ok(moved(), 'delete');
    await workflows.insertOne(workflow('w2', 'two'));
    moved();
    await assert.rejects(store.batch([{ op: 'insert', collection: 'workflows', doc: workflow('w3', 'three') }, { op: 'insert', collection: 'workflows', doc: workflow('w2', 'again') }]));
    assert.equal(moved(), false, 'a batch rolled back moves nothing');
    assert.equal(new Set(marks).size, marks.length - 1);
    await store.close();
  });
});

test("other collections' writes, from this connection or another, leave the mark where it was", async () => {
  await inDir(async (dir, file) => {
    const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await store.collection('workflows').insertOne(workflow('w1', 'one'));
    const mark = store.collection('workflows').changeMark();
    await store.batch([{ op: 'insert', collection: 'jobs', doc: { _id: 'a'.repeat(24), name: 'one', status: 'running' } }]);
    const other = new Database(file);
    other.prepare(`DELETE FROM jobs`).run();
    other.close();
    assert.equal(store.collection('workflows').changeMark(), mark);
    // Another connection writing the marked collection moves it, by the triggers in the file.
    const writer = new Database(file);
    writer.prepare(`UPDATE workflows SET doc = jsonb_set(doc, '$.description', 'elsewhere')`).run();
    writer.close();
    assert.notEqual(store.collection('workflows').changeMark(), mark);
    await store.close();
  });
});

test('a store made before the marks gets them when opened, and unmarked collections have none', async () => {
  await inDir(async (dir, file) => {
    const first = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await first.collection('workflows').insertOne(workflow('w1', 'one'));
    await first.close();
    // As a store written by the version before: no mark table, no triggers.
    const old = new Database(file);
    for (const suffix of ['ai', 'au', 'ad']) old.exec(`DROP TRIGGER "workflows__mark_${suffix}"`);
    old.exec('DROP TABLE _change_marks');
    old.close();
    const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    const mark = store.collection('workflows').changeMark();
    assert.equal(typeof mark, 'string');
    await store.collection('workflows').deleteOne('w1');
    assert.notEqual(store.collection('workflows').changeMark(), mark);
    assert.equal(store.collection('jobs').changeMark(), null);
    await store.close();
  });
});
