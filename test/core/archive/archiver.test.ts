/**
 * The archiver's lease and its recovery of a killed holder's batch, on both
 * stores (SQLite always, MongoDB when MONGO_URL is set): the crash states a
 * kill leaves are set up directly, and the next pass must finish or forget
 * them without losing or doubling a document.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Archiver } from '../../../kernel/archive/archiver.ts';
import { readDocs, readManifest, writeManifest } from '../../../kernel/archive/files.ts';
import { ArchiveLease, LeaseLostError } from '../../../kernel/archive/lease.ts';
import { createLogger } from '../../../kernel/logger.ts';
import type { Doc, Store } from '../../../kernel/store/types.ts';
import { MONGO_SKIP_REASON, storeFactories } from '../../helpers/stores.ts';
import { jobsGroup } from '../../../core/src/archive/jobs.ts';
import { timingSleep } from '../../helpers/wait.ts';

if (!process.env['MONGO_URL']) console.log(`# ${MONGO_SKIP_REASON}`);

const DAY = 86_400_000;
const logger = createLogger({ level: 'error', service: 'test' });

/** `n` finished jobs 40 days old with two tasks each, and one recent job; answers the due jobs' ids. */
async function seed(store: Store, n: number, offset: number): Promise<string[]> {
  const now = Date.now();
  const ids: string[] = [];
  const jobs: Doc[] = [];
  const tasks: Doc[] = [];
  for (let i = 0; i < n + 1; i += 1) {
    const id = (offset + i).toString(16).padStart(24, '0');
    const end = i < n ? now - 40 * DAY - i * 60_000 : now - DAY;
    jobs.push({ _id: id, name: `j${i}`, status: 'complete', metrics: { start_time: end - 1000, end_time: end } });
    for (const t of [0, 1]) tasks.push({ _id: `${id}-t${t}`, name: `t${t}`, status: 'complete', job: { _id: id } });
    if (i < n) ids.push(id);
  }
  await store.collection('jobs').insertMany(jobs);
  await store.collection('tasks').insertMany(tasks);
  return ids;
}

/** Removes every job and task a test left, so the next starts from an empty store. */
async function emptyJobs(store: Store): Promise<void> {
  for (const c of ['jobs', 'tasks'] as const) for (const d of (await store.collection(c).search({ where: null, sort: [], skip: 0, limit: 1000 })).docs) await store.collection(c).deleteOne(String(d['_id']));
}

/** A store whose answer to `roomForBackgroundWrites` is the test's; everything else is the real store. */
function gatedStore(store: Store, room: () => boolean): Store {
  return new Proxy(store, { get: (target, key, receiver) => (key === 'roomForBackgroundWrites' ? room : Reflect.get(target, key, receiver)) });
}

async function archivedIds(dir: string, kind: 'jobs' | 'tasks'): Promise<string[]> {
  const manifest = await readManifest(dir, 'jobs');
  const out: string[] = [];
  for (const [name, entry] of Object.entries(manifest.files)) if (entry.kind === kind) out.push(...(await readDocs(dir, name, entry)).map((d) => String(d['_id'])));
  return out.sort();
}

for (const factory of storeFactories()) {
  describe(`archiver on ${factory.name}`, { skip: factory.skip ?? false }, () => {
    let store: Store;
    let dir: string;
    before(async () => {
      store = await factory.open();
    });
    after(async () => {
      await store.close();
    });

    test('the lease: one holder at a time, taken over only once expired, and the old holder then stops', async () => {
      let now = 1_000_000;
      const a = new ArchiveLease(store, 'audit', 'a', 1000, () => now);
      const b = new ArchiveLease(store, 'audit', 'b', 1000, () => now);
      assert.equal(await a.acquire(), true);
      assert.equal(await b.acquire(), false);
      now += 900;
      await a.update();
      now += 900;
      assert.equal(await b.acquire(), false, 'renewed by the update');
      now += 1200;
      assert.equal(await b.acquire(), true, 'expired');
      await assert.rejects(a.update(), LeaseLostError);
      await b.release();
      assert.equal(await a.acquire(), true, 'released');
      await a.release();
    });

    test('a pass archives each due job with its tasks once and keeps the rest; two at once archive once', async () => {
      dir = mkdtempSync(join(tmpdir(), 'iap-archiver-'));
      try {
        const due = await seed(store, 30, 0x1000);
        const make = (owner: string) => new Archiver({ store, group: jobsGroup, dir, owner, leaseMs: 10_000, batchSize: 4, logger });
        const cutoff = Date.now() - 30 * DAY;
        const results = await Promise.all([make('one').pass(cutoff), make('two').pass(cutoff)]);
        assert.deepEqual(results.map((r) => r.ran).sort(), [false, true]);
        assert.deepEqual(await archivedIds(dir, 'jobs'), [...due].sort());
        assert.deepEqual(await archivedIds(dir, 'tasks'), due.flatMap((id) => [`${id}-t0`, `${id}-t1`]).sort());
        assert.equal(await store.collection('jobs').count(null), 1);
        assert.equal(await store.collection('tasks').count(null), 2);
        const state = await store.collection('archive_state').findById('jobs');
        assert.equal(state?.['pending'], null);
        assert.equal(state?.['archivedBefore'], cutoff);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await emptyJobs(store);
      }
    });

    test('a batch killed after its manifest was written: the next pass finishes its deletes and archives nothing twice', async () => {
      dir = mkdtempSync(join(tmpdir(), 'iap-archiver-'));
      try {
        const due = await seed(store, 6, 0x2000);
        const cutoff = Date.now() - 30 * DAY;
        // Archive all, then put two documents back as if their deletes had not happened yet.
        await new Archiver({ store, group: jobsGroup, dir, owner: 'first', leaseMs: 10_000, batchSize: 100, logger }).pass(cutoff);
        const job = due[0]!;
        await store.collection('jobs').insertOne({ _id: job, name: 'j0', status: 'complete', metrics: { start_time: 1, end_time: 2 } });
        await store.collection('tasks').insertOne({ _id: `${job}-t0`, job: { _id: job } });
        const manifest = await readManifest(dir, 'jobs');
        await writeManifest(dir, { ...manifest, lastBatch: 'killed-batch' });
        const state = (await store.collection('archive_state').findById('jobs'))!;
        await store.collection('archive_state').replaceOne({ ...state, pending: { batch: 'killed-batch', ids: { tasks: [`${job}-t0`, `${job}-t1`], jobs: [job] } }, owner: 'dead', expiresAt: 0 });
        const result = await new Archiver({ store, group: jobsGroup, dir, owner: 'next', leaseMs: 10_000, batchSize: 100, logger }).pass(cutoff);
        assert.equal(result.ran, true);
        assert.equal(await store.collection('jobs').findById(job), null, 'the pending delete was finished');
        assert.equal(await store.collection('tasks').findById(`${job}-t0`), null);
        assert.deepEqual(await archivedIds(dir, 'jobs'), [...due].sort(), 'nothing archived twice');
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await emptyJobs(store);
      }
    });

    test('an archiver the store asks to wait writes nothing meanwhile, keeps its lease, and archives every due job once the store has room', async () => {
      dir = mkdtempSync(join(tmpdir(), 'iap-archiver-'));
      try {
        const due = await seed(store, 6, 0x4000);
        let room = false;
        const gated = gatedStore(store, () => room);
        const cutoff = Date.now() - 30 * DAY;
        const pass = new Archiver({ store: gated, group: jobsGroup, dir, owner: 'patient', leaseMs: 400, batchSize: 2, logger }).pass(cutoff);
        await timingSleep(700, 'a timing test: the archiver renews its 400 ms lease on the wall clock (performance.now) while it waits for room, so the wait must outlast the lease');
        assert.equal(await store.collection('jobs').count(null), 7, 'a job was archived while the store asked the archiver to wait');
        const other = new Archiver({ store, group: jobsGroup, dir, owner: 'other', leaseMs: 400, batchSize: 2, logger });
        assert.equal((await other.pass(cutoff)).ran, false, 'the lease ran out while the archiver waited (it is renewed every quarter of it)');
        room = true;
        const result = await pass;
        assert.equal(result.archived.jobs, 6);
        assert.ok(result.waitedMs >= 600, `waited ${result.waitedMs} ms`);
        assert.deepEqual(await archivedIds(dir, 'jobs'), [...due].sort());
        assert.equal(await store.collection('jobs').count(null), 1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await emptyJobs(store);
      }
    });

    test('an archiver stopped while it waits for the store ends its pass at once, with nothing pending', async () => {
      dir = mkdtempSync(join(tmpdir(), 'iap-archiver-'));
      try {
        await seed(store, 3, 0x5000);
        let asked = (): void => undefined;
        const waiting = new Promise<void>((resolve) => (asked = resolve));
        // The store says "no room" and tells the test the archiver asked: from then on the pass is waiting.
        const gated = gatedStore(store, () => (asked(), false));
        const archiver = new Archiver({ store: gated, group: jobsGroup, dir, owner: 'stopped', leaseMs: 10_000, batchSize: 2, logger });
        const pass = archiver.pass(Date.now() - 30 * DAY);
        await waiting;
        const stoppedAt = performance.now();
        archiver.stop();
        const result = await pass;
        assert.ok(performance.now() - stoppedAt < 500, 'the pass went on waiting after stop()');
        assert.equal(result.batches, 0);
        assert.equal(await store.collection('jobs').count(null), 4);
        const state = await store.collection('archive_state').findById('jobs');
        assert.equal(state?.['pending'], null);
        assert.equal(state?.['expiresAt'], 0, 'the lease was not released');
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await emptyJobs(store);
      }
    });

    test('a batch killed before its manifest was written: the next pass forgets it and archives its documents once', async () => {
      dir = mkdtempSync(join(tmpdir(), 'iap-archiver-'));
      try {
        const due = await seed(store, 5, 0x3000);
        const state = await store.collection('archive_state').findById('jobs');
        await store.collection('archive_state').replaceOne({ ...state!, pending: { batch: 'never-committed', ids: { tasks: [], jobs: due } }, owner: 'dead', expiresAt: 0 });
        const result = await new Archiver({ store, group: jobsGroup, dir, owner: 'next', leaseMs: 10_000, batchSize: 2, logger }).pass(Date.now() - 30 * DAY);
        assert.equal(result.archived.jobs, 5);
        assert.deepEqual(await archivedIds(dir, 'jobs'), [...due].sort());
        assert.equal(await store.collection('jobs').count(null), 1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
