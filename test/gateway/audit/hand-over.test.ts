/**
 * Records handed to the writer thread as they are journaled: the event loop
 * keeps only a count, a commit stores them and cuts the journal, and a
 * thread that dies holding records loses none of them, because they are
 * handed over again from the journal.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { createLogger } from '../../../kernel/logger.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { GATEWAY_COLLECTIONS } from '../../../gateway/src/audit/collection.ts';
import { AuditJournal } from '../../../gateway/src/audit/journal.ts';
import { AuditRecorder } from '../../../gateway/src/audit/recorder.ts';
import { WriterThread } from '../../../gateway/src/audit/writer-thread.ts';
import { auditCall, tempDir } from '../../faults/support.ts';

const data = tempDir('hand-over');
after(() => data.remove());
const logger = createLogger({ level: 'error', service: 'test', silent: true });
const FILE = 'gateway.sqlite';

function open(dir: string): { store: SqliteStore; writer: WriterThread; journal: AuditJournal; recorder: AuditRecorder } {
  const store = SqliteStore.open({ dataDir: dir, fileName: FILE, countCacheEntries: 0, autoCheckpoint: false, collections: GATEWAY_COLLECTIONS });
  const writer = new WriterThread({ dataDir: dir, fileName: FILE });
  const journal = AuditJournal.open(join(dir, 'gateway-audit.jsonl'));
  const recorder = new AuditRecorder(store, logger, { journal, sink: writer, flushEveryMs: 3_600_000 });
  return { store, writer, journal, recorder };
}

/** Records `n` calls and resolves once all are answered (journaled and handed over). */
function recordCalls(recorder: AuditRecorder, n: number, tag: string): Promise<void> {
  return new Promise((resolve) => {
    for (let i = 0; i < n; i += 1) recorder.record(auditCall(`${tag}-${i}`), i === n - 1 ? resolve : undefined);
  });
}

async function agents(store: SqliteStore): Promise<string[]> {
  const { docs } = await store.collection('audit').search({ where: null, sort: [], skip: 0, limit: 100_000 });
  return docs.map((d) => String((d['client'] as { userAgent: string }).userAgent));
}

async function countIn(dir: string): Promise<number> {
  const store = SqliteStore.open({ dataDir: dir, fileName: FILE, countCacheEntries: 0, autoCheckpoint: false, collections: GATEWAY_COLLECTIONS });
  const n = await store.collection('audit').count(null);
  await store.close();
  return n;
}

/**
 * Answers once the thread has every record handed over so far: a round trip that stores nothing, behind the
 * hand-overs on the same port, which delivers in order.
 */
const handedOver = (writer: WriterThread): Promise<void> => writer.store([]);

test('handed-over records count in the backlog until a commit stores them, and the journal is cut to nothing after it', async () => {
  const dir = join(data.path, 'commit');
  const { store, writer, journal, recorder } = open(dir);
  await recordCalls(recorder, 120, 'a');
  await handedOver(writer);
  assert.equal(recorder.backlog, 120, 'handed over but not stored: still the backlog');
  assert.equal(await store.collection('audit').count(null), 0, 'nothing stored before the commit');
  await recorder.flush();
  assert.equal(recorder.backlog, 0);
  assert.equal(journal.size, 0);
  const stored = await agents(store);
  assert.deepEqual(stored, Array.from({ length: 120 }, (_, i) => `a-${i}`), 'every record once, in the order recorded');
  assert.ok(readdirSync(dir).filter((f) => f.startsWith('gateway-audit.jsonl.')).length <= 1, 'stored segments are deleted');
  await recorder.close();
  await writer.close();
  await store.close();
});

test('a writer thread that dies holding records loses none: they are handed over again from the journal and stored once', async () => {
  const dir = join(data.path, 'loss');
  const { store, writer, journal, recorder } = open(dir);
  await recordCalls(recorder, 200, 'before');
  await handedOver(writer);
  // The thread dies with 200 records it was handed and never stored (fault injection on the real thread).
  await (writer as unknown as { worker: Worker }).worker.terminate();
  await recordCalls(recorder, 50, 'after');
  await recorder.flush();
  // The commit found the loss: the journal still holds every record, and they are all on their way again.
  assert.equal(journal.size, 250, 'the journal is not cut after a loss');
  await recorder.flush();
  assert.equal(journal.size, 0);
  assert.equal(recorder.backlog, 0);
  const stored = await agents(store);
  assert.equal(stored.length, 250, 'each record stored once');
  assert.deepEqual(new Set(stored), new Set([...Array.from({ length: 200 }, (_, i) => `before-${i}`), ...Array.from({ length: 50 }, (_, i) => `after-${i}`)]));
  await recorder.close();
  await store.close();
});

test('records a killed gateway left in the journal are handed over at start and stored once with the first commit', async () => {
  const dir = join(data.path, 'recovered');
  const first = open(dir);
  await recordCalls(first.recorder, 80, 'left');
  await handedOver(first.writer);
  // A killed gateway: its thread ends holding the records, nothing flushed or closed; only the journal remains.
  await (first.writer as unknown as { worker: Worker }).worker.terminate();
  await first.store.close();
  assert.equal(await countIn(dir), 0, 'nothing was stored before the kill');
  const second = open(dir);
  assert.equal(second.recorder.backlog, 80);
  await recordCalls(second.recorder, 20, 'new');
  await second.recorder.flush();
  const stored = await agents(second.store);
  assert.equal(stored.length, 100);
  assert.deepEqual(stored.slice(0, 80), Array.from({ length: 80 }, (_, i) => `left-${i}`), 'the recovered records come first');
  assert.equal(second.journal.size, 0);
  await second.recorder.close();
  await second.store.close();
});
