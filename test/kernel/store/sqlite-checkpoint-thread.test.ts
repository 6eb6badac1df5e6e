/**
 * The embedded store's WAL checkpoint thread on a real file: with it, the
 * store's own connection makes no checkpoint at a commit until the WAL is
 * 64 MB long, yet under a stream of writes the thread keeps the WAL far
 * shorter; what was written is all there after a reopen; and if the thread
 * dies the store's connection checkpoints as SQLite does by default.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newObjectId, plainCollection, SqliteStore } from '../../../kernel/index.ts';
import { tempDir } from '../../faults/support.ts';
import { eventually, timingSleep } from '../../helpers/wait.ts';

const data = tempDir('checkpoint-thread');
after(() => data.remove());
const PAD = 'x'.repeat(1000);
/** A collection without a document type or indexes: the test is about pages written, not what they hold. */
const collections = [plainCollection('cluster')];
const MB = 1024 * 1024;

/** About 15 MB of documents, 200 per commit, a commit every 10 ms or so as a busy service makes them. */
async function writeMany(store: SqliteStore, tag: string): Promise<void> {
  for (let batch = 0; batch < 60; batch += 1) {
    await store.collection('cluster').insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: newObjectId(), tag, pad: `${PAD}-${batch}-${i}` })));
    await timingSleep(10, 'commits spread in time as a busy service makes them, so the checkpoint thread (its own interval, in its own thread) comes round between them');
  }
}

const walSize = (dir: string): number => (existsSync(join(dir, 'iap.sqlite-wal')) ? statSync(join(dir, 'iap.sqlite-wal')).size : 0);

test('with the checkpoint thread, the WAL stays far below the length at which the store\'s connection would checkpoint, and nothing written is lost', { timeout: 60_000 }, async () => {
  const dir = join(data.path, 'bounded');
  const store = SqliteStore.open({ dataDir: dir, countCacheEntries: 0, collections, checkpointMs: 50 });
  let largest = 0;
  const watch = setInterval(() => (largest = Math.max(largest, walSize(dir))), 5);
  await writeMany(store, 'a');
  clearInterval(watch);
  largest = Math.max(largest, walSize(dir));
  // Without the thread the WAL holds all 15 MB: the store's own connection checkpoints only past 64 MB.
  assert.ok(largest < 8 * MB, `the WAL reached ${(largest / MB).toFixed(1)} MB: the thread did not keep it short`);
  const figures = await store.checkpointFigures();
  assert.ok(figures && figures.checkpoints > 0 && figures.frames > 0, `the thread checkpointed: ${JSON.stringify(figures)}`);
  assert.equal(figures.lastError, null);
  assert.equal(await store.collection('cluster').count(null), 12_000);
  await store.close();
  const reopened = new Database(join(dir, 'iap.sqlite'));
  assert.equal(reopened.pragma('integrity_check', { simple: true }), 'ok');
  assert.equal((reopened.prepare('SELECT count(*) AS n FROM cluster').get() as { n: number }).n, 12_000);
  reopened.close();
});

test('the store\'s connection makes no checkpoint of its own while the WAL is short of its bound (15 MB of commits stay in it)', { timeout: 60_000 }, async () => {
  const dir = join(data.path, 'no-own');
  // A thread that never comes round in this test: only the store's connection could checkpoint.
  const store = SqliteStore.open({ dataDir: dir, countCacheEntries: 0, collections, checkpointMs: 60_000 });
  await writeMany(store, 'b');
  assert.ok(walSize(dir) > 12 * MB, `the WAL is ${(walSize(dir) / MB).toFixed(1)} MB: a commit checkpointed it on the event loop`);
  await store.close();
});

test('if the checkpoint thread dies, the store\'s connection checkpoints as SQLite does by default, every 4 MB', { timeout: 60_000 }, async () => {
  const dir = join(data.path, 'dies');
  const store = SqliteStore.open({ dataDir: dir, countCacheEntries: 0, collections, checkpointMs: 60_000 });
  // The thread's end, as a crash in it would end it.
  const thread = (store as unknown as { checkpoints: { worker: { terminate(): Promise<number> } } }).checkpoints;
  await thread.worker.terminate();
  // The store hears of the end from the worker's exit event.
  assert.equal(await eventually(async () => (await store.checkpointFigures()) === null, { timeoutMs: 2000 }).catch(() => false), true, 'the store knows its thread is gone');
  // Nothing would cut a long WAL file back now: background writers must not wait on its size.
  assert.equal(store.roomForBackgroundWrites(), true);
  let largest = 0;
  const watch = setInterval(() => (largest = Math.max(largest, walSize(dir))), 5);
  await writeMany(store, 'c');
  clearInterval(watch);
  assert.ok(largest < 8 * MB, `the WAL reached ${(largest / MB).toFixed(1)} MB after the thread died`);
  assert.equal(await store.collection('cluster').count(null), 12_000);
  await store.close();
});

/** Whether `check` comes to hold within `ms`. */
const holdsWithin = (check: () => boolean, ms: number): Promise<boolean> => eventually(check, { timeoutMs: ms }).catch(() => false);

test('a reader\'s snapshot that keeps the WAL from being started again makes the store ask background writers to wait once the WAL passes 32 MB, and no longer once the reader ends', { timeout: 60_000 }, async () => {
  const dir = join(data.path, 'crowded');
  const store = SqliteStore.open({ dataDir: dir, countCacheEntries: 0, collections, checkpointMs: 20 });
  await store.collection('cluster').insertOne({ _id: newObjectId(), tag: 'first' });
  // Another process's long search: a read transaction that has read, and so holds its snapshot.
  const reader = new Database(join(dir, 'iap.sqlite'));
  reader.exec('BEGIN');
  assert.equal((reader.prepare('SELECT count(*) AS n FROM cluster').get() as { n: number }).n, 1);
  let asked = false;
  const watch = setInterval(() => (asked ||= !store.roomForBackgroundWrites()), 5);
  for (let round = 0; round < 3; round += 1) await writeMany(store, `r${round}`);
  clearInterval(watch);
  try {
    assert.ok(walSize(dir) > 32 * MB, `the WAL is ${(walSize(dir) / MB).toFixed(1)} MB: the reader did not hold it`);
    assert.ok(asked || !store.roomForBackgroundWrites(), 'past 32 MB of WAL held by a reader, the store still welcomed background writes');
    assert.equal(await holdsWithin(() => !store.roomForBackgroundWrites(), 2000), true, 'the store kept asking background writers in while the reader held the WAL');
  } finally {
    reader.exec('COMMIT');
    reader.close();
  }
  assert.equal(await holdsWithin(() => store.roomForBackgroundWrites(), 5000), true, 'the WAL was not started again after the reader ended');
  assert.equal(await store.collection('cluster').count(null), 36_001);
  await store.close();
});

test('without long readers the thread keeps the WAL short and the store never asks background writers to wait; nor does a store without a thread', { timeout: 60_000 }, async () => {
  const dir = join(data.path, 'roomy');
  const store = SqliteStore.open({ dataDir: dir, countCacheEntries: 0, collections, checkpointMs: 20 });
  let asked = false;
  const watch = setInterval(() => (asked ||= !store.roomForBackgroundWrites()), 5);
  for (let round = 0; round < 3; round += 1) await writeMany(store, `r${round}`);
  clearInterval(watch);
  assert.equal(asked, false, 'the store asked background writers to wait with no reader holding its WAL');
  await store.close();
  const plain = SqliteStore.open({ dataDir: join(data.path, 'no-thread'), countCacheEntries: 0, collections });
  assert.equal(plain.roomForBackgroundWrites(), true);
  await plain.close();
});

/** Another process's TRUNCATE checkpoint of `file`, never waiting: busy 1 while a reader of any process holds the WAL. */
function truncateFromAnotherProcess(file: string): { busy: number; log: number } {
  const code = `const db = new (require('better-sqlite3'))(process.argv[1], { timeout: 0 });
process.stdout.write(JSON.stringify(db.pragma('wal_checkpoint(TRUNCATE)')[0]));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', code, file], { encoding: 'utf8' })) as { busy: number; log: number };
}

test('asking whether background writers may go on keeps every lock this process holds on the store\'s files: a reader\'s snapshot still blocks another process\'s TRUNCATE', { timeout: 60_000 }, async () => {
  const dir = join(data.path, 'locks');
  const store = SqliteStore.open({ dataDir: dir, countCacheEntries: 0, collections, checkpointMs: 60_000 });
  const file = join(dir, 'iap.sqlite');
  await store.collection('cluster').insertOne({ _id: newObjectId(), tag: 'first' });
  const reader = new Database(file);
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM cluster').get();
  try {
    for (let i = 0; i < 100; i += 1) store.roomForBackgroundWrites();
    assert.equal(truncateFromAnotherProcess(file).busy, 1, 'the reader\'s lock was dropped: another process could cut the WAL under it');
    // The check can fail: opening and closing the -shm file here drops the reader's lock (POSIX locks are the process's).
    closeSync(openSync(`${file}-shm`, 'r'));
    assert.equal(truncateFromAnotherProcess(file).busy, 0, 'closing a descriptor of the -shm file did not drop the lock: the check above proves nothing');
  } finally {
    reader.exec('COMMIT');
    reader.close();
  }
  await store.close();
});
