/**
 * The audit writer thread on a real SQLite file: what it stores, on its own
 * connection, the gateway's connection reads; a replayed record is stored
 * once; and the WAL is checkpointed by the thread, so it stays bounded
 * though the gateway's connection never checkpoints.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../../kernel/logger.ts';
import { newObjectId } from '../../../kernel/store/ids.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { AuditJournal } from '../../../gateway/src/audit/journal.ts';
import type { JournaledRecord } from '../../../gateway/src/audit/journal.ts';
import { AuditRecorder } from '../../../gateway/src/audit/recorder.ts';
import { WriterThread } from '../../../gateway/src/audit/writer-thread.ts';
import { auditCall, tempDir } from '../../faults/support.ts';
import { GATEWAY_COLLECTIONS } from '../../../gateway/src/audit/collection.ts';

const data = tempDir('writer-thread');
after(() => data.remove());
const logger = createLogger({ level: 'error', service: 'test', silent: true });
const FILE = 'gateway.sqlite';


/** The gateway's shape: its own connection only reads and never checkpoints; the thread writes. */
function open(dir: string): { store: SqliteStore; writer: WriterThread } {
  return { store: SqliteStore.open({ dataDir: dir, fileName: FILE, countCacheEntries: 0, autoCheckpoint: false, collections: GATEWAY_COLLECTIONS }), writer: new WriterThread({ dataDir: dir, fileName: FILE }) };
}

test('records stored by the writer thread are read on the gateway\'s connection, in the order recorded, and a replayed one is stored once', async () => {
  const dir = join(data.path, 'order');
  const { store, writer } = open(dir);
  const journal = AuditJournal.open(join(dir, 'gateway-audit.jsonl'));
  const recorder = new AuditRecorder(store, logger, { journal, sink: writer, flushEveryMs: 3_600_000 });
  await new Promise<void>((resolve) => {
    for (let i = 0; i < 450; i += 1) recorder.record(auditCall(`agent-${i}`), i === 449 ? resolve : undefined);
  });
  await recorder.flush();
  const { docs } = await store.collection('audit').search({ where: null, sort: [], skip: 0, limit: 10_000 });
  assert.equal(docs.length, 450);
  // Ids grow with the order recorded (time-ordered): the store's rowid order is the order stored.
  const ids = docs.map((d) => String(d['_id']));
  assert.deepEqual(ids, [...ids].sort(), 'stored in the order recorded');
  await recorder.close();
  // A record stored already, sent again (as a journal replay would), beside a new one.
  const again = new WriterThread({ dataDir: dir, fileName: FILE });
  const replayed = docs[10] as unknown as JournaledRecord;
  const next: JournaledRecord = { _id: newObjectId(), ...auditCall('after') };
  await again.store([replayed, next]);
  await again.close();
  assert.equal(await store.collection('audit').count(null), 451);
  assert.deepEqual(await store.collection('audit').findById(next._id), next);
  await store.close();
});

test('the writer thread checkpoints the WAL, so it stays bounded while the gateway\'s connection makes no checkpoint', { timeout: 60_000 }, async () => {
  const dir = join(data.path, 'checkpoints');
  const { store, writer } = open(dir);
  const pad = 'x'.repeat(1000);
  // About 15 MB of records; SQLite's automatic checkpoint comes at every 1,000 pages (4 MB) of WAL.
  for (let batch = 0; batch < 60; batch += 1) {
    await writer.store(Array.from({ length: 200 }, (_, i) => ({ _id: newObjectId(), ...auditCall(`${pad}-${batch}-${i}`) })));
  }
  assert.equal(await store.collection('audit').count(null), 12_000);
  const wal = statSync(join(dir, `${FILE}-wal`)).size;
  assert.ok(wal < 8 * 1024 * 1024, `the WAL is ${(wal / 1024 / 1024).toFixed(1)} MB: nobody checkpointed it`);
  await writer.close();
  await store.close();
});
