/**
 * The workflow a start reads by name is kept while its collection's change
 * mark stays, and never answered stale: a change written through this store,
 * or by another process on the same file, is read at the next lookup. What is
 * kept is frozen, so no caller can change what the next one reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Store } from '../../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';
import { createWorkflowLookup } from '../../../core/src/workflows/lookup.ts';

const ID = '00000000-0000-4000-8000-000000000001';
const workflow = (description: string) => ({ _id: ID, name: 'wf', description, tasks: { workflow_start: { name: 'workflow_start', groups: [] } }, transitions: {}, groups: [] });

async function withStore(fn: (dir: string, store: Store) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'iap-lookup-'));
  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  try {
    await fn(dir, store);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a workflow read by name is read again after this process changes it, however it writes', async () => {
  await withStore(async (_dir, store) => {
    const lookup = createWorkflowLookup(store);
    const workflows = store.collection('workflows');
    await workflows.insertOne(workflow('first'));
    assert.equal((await lookup.byName('wf'))?.description, 'first');
    assert.equal(await lookup.byName('wf'), await lookup.byName('wf'), 'kept while nothing changed');
    await workflows.replaceOne(workflow('second'));
    assert.equal((await lookup.byName('wf'))?.description, 'second');
    await store.batch([{ op: 'replace', collection: 'workflows', doc: workflow('third') }]);
    assert.equal((await lookup.byName('wf'))?.description, 'third');
    await workflows.deleteOne(ID);
    assert.equal(await lookup.byName('wf'), null);
  });
});

test('a workflow changed by another process on the same file is read again', async () => {
  await withStore(async (dir, store) => {
    const lookup = createWorkflowLookup(store);
    await store.collection('workflows').insertOne(workflow('first'));
    assert.equal((await lookup.byName('wf'))?.description, 'first');
    // Another connection, as another core on the same file would be: nothing of it passes through this store.
    const other = new Database(join(dir, 'iap.sqlite'));
    other.prepare(`UPDATE workflows SET doc = jsonb_set(doc, '$.description', 'changed elsewhere') WHERE id = ?`).run(ID);
    other.close();
    assert.equal((await lookup.byName('wf'))?.description, 'changed elsewhere');
  });
});

test('the workflow kept cannot be changed by a caller', async () => {
  await withStore(async (_dir, store) => {
    const lookup = createWorkflowLookup(store);
    await store.collection('workflows').insertOne(workflow('first'));
    const found = (await lookup.byName('wf'))!;
    assert.throws(() => {
      (found.tasks as Record<string, unknown>)['planted'] = { name: 'makeData' };
    }, TypeError);
    assert.equal(Object.keys((await lookup.byName('wf'))!.tasks).includes('planted'), false);
  });
});

test("a workflow stays kept while other processes write other collections", async () => {
  await withStore(async (dir, store) => {
    const lookup = createWorkflowLookup(store);
    await store.collection('workflows').insertOne(workflow('first'));
    const kept = await lookup.byName('wf');
    // As a second core on the same file starting jobs, or `npm run archive` deleting them.
    const other = new Database(join(dir, 'iap.sqlite'));
    other.prepare(`INSERT INTO jobs (id, doc) VALUES (?, jsonb(?))`).run('b'.repeat(24), JSON.stringify({ _id: 'b'.repeat(24), name: 'x', status: 'running' }));
    other.close();
    assert.equal(await lookup.byName('wf'), kept, 'the same object: not read again');
  });
});
