/**
 * The engine's group commit (core/src/engine/group-commit.ts): batches handed
 * in during one turn share one store batch, nobody is answered before the
 * writes are in the store, and one batch that the store refuses never takes
 * the others down with it nor lets its own writes in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DuplicateKeyError, StoreUnavailableError } from '../../../kernel/index.ts';
import type { Store, WriteOp } from '../../../kernel/index.ts';
import { GroupCommit } from '../../../core/src/engine/group-commit.ts';
import { openTestStore } from '../../helpers/stores.ts';

/** The store, with every batch it is asked for counted. */
function counted(store: Store): { store: Store; batches: Array<readonly WriteOp[]> } {
  const batches: Array<readonly WriteOp[]> = [];
  const proxy = Object.create(store) as Store;
  proxy.batch = (ops) => {
    batches.push(ops);
    return store.batch(ops);
  };
  return { store: proxy, batches };
}

const insert = (id: string, extra: Record<string, unknown> = {}): WriteOp => ({ op: 'insert', collection: 'tasks', doc: { _id: id, name: id, ...extra } });

test('batches handed in during one turn are written by one store batch, and each caller is answered once its writes are stored', async () => {
  const base = await openTestStore();
  const { store, batches } = counted(base);
  const group = new GroupCommit(store);
  const answers = ['a', 'b', 'c'].map((id) =>
    group.batch([insert(id)]).then(async (applied) => {
      // Answered only after the commit: what was acknowledged can be read back.
      assert.equal(applied, true);
      assert.ok(await base.collection('tasks').findById(id), `${id} is stored when its caller is answered`);
    }),
  );
  await Promise.all(answers);
  assert.equal(batches.length, 1, 'one store batch for the three');
  assert.equal(batches[0]!.length, 3);
});

test("a batch whose revision check fails gets false and leaves nothing behind, while the others of its group are committed", async () => {
  const base = await openTestStore();
  await base.collection('jobs').insertOne({ _id: 'job-1', name: 'x', _rev: 3 });
  const { store, batches } = counted(base);
  const group = new GroupCommit(store);
  const [first, stale, last] = await Promise.all([
    group.batch([insert('t1')]),
    // Made from revision 2, which another writer has moved past: refused, with its task document.
    group.batch([{ op: 'replaceIfRev', collection: 'jobs', doc: { _id: 'job-1', name: 'stale', _rev: 3 }, expectedRev: 2 }, insert('t-stale')]),
    group.batch([insert('t3')]),
  ]);
  assert.deepEqual([first, stale, last], [true, false, true]);
  assert.ok(await base.collection('tasks').findById('t1'));
  assert.ok(await base.collection('tasks').findById('t3'));
  assert.equal(await base.collection('tasks').findById('t-stale'), null, "the refused batch's other writes are not stored");
  assert.equal((await base.collection('jobs').findById('job-1'))!['name'], 'x');
  // The shared batch, then each on its own.
  assert.equal(batches.length, 4);
});

test('a batch the store refuses with an error is rejected with that error, and the batches beside it are committed', async () => {
  const base = await openTestStore();
  await base.collection('tasks').insertOne({ _id: 'taken', name: 'taken' });
  const group = new GroupCommit(base);
  const results = await Promise.allSettled([group.batch([insert('ok-1')]), group.batch([insert('taken'), insert('with-taken')]), group.batch([insert('ok-2')])]);
  assert.equal(results[0].status, 'fulfilled');
  assert.equal(results[2].status, 'fulfilled');
  assert.equal(results[1].status, 'rejected');
  assert.ok((results[1] as PromiseRejectedResult).reason instanceof DuplicateKeyError);
  assert.ok(await base.collection('tasks').findById('ok-1'));
  assert.ok(await base.collection('tasks').findById('ok-2'));
  assert.equal(await base.collection('tasks').findById('with-taken'), null);
});

test('when the store itself is unavailable, every batch of the group gets its error at once, without one retry each', async () => {
  const base = await openTestStore();
  const { store, batches } = counted(base);
  store.batch = (ops) => {
    batches.push(ops);
    return Promise.reject(new StoreUnavailableError('The store is busy with another process; try again'));
  };
  const group = new GroupCommit(store);
  const results = await Promise.allSettled([group.batch([insert('a')]), group.batch([insert('b')])]);
  assert.ok(results.every((r) => r.status === 'rejected' && r.reason instanceof StoreUnavailableError));
  assert.equal(batches.length, 1, 'each retried alone would wait out the busy timeout again');
});

test('a burst larger than one group is committed over several turns, with other callbacks run between them', async () => {
  const base = await openTestStore();
  const { store, batches } = counted(base);
  const group = new GroupCommit(store);
  const log: string[] = [];
  const burst = Array.from({ length: 60 }, (_, i) => group.batch(Array.from({ length: 11 }, (_, k) => insert(`burst-${i}-${k}`))).then(() => log.push(`job ${i}`)));
  setImmediate(() => log.push('io'));
  await Promise.all(burst);
  assert.ok(batches.length >= 3, `60 batches of 11 writes went in ${batches.length} store batches`);
  assert.ok(batches.every((b) => b.length <= 256));
  const io = log.indexOf('io');
  assert.ok(io > 0 && io < log.length - 1, `other work ran between the groups (at ${io} of ${log.length})`);
  assert.equal(await base.collection('tasks').count(null), 660);
});

test('what is queued or being committed is pending until it is stored, so a clean shutdown closes the store only after it', async () => {
  const base = await openTestStore();
  const group = new GroupCommit(base);
  void group.batch([insert('queued')]);
  assert.ok(group.pending().length > 0, 'a queued batch is pending before its turn');
  for (let pending = group.pending(); pending.length > 0; pending = group.pending()) await Promise.allSettled(pending);
  assert.ok(await base.collection('tasks').findById('queued'));
});
