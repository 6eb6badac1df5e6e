/**
 * The audit journal on its own and under the recorder, on a real SQLite
 * store: a record is in the journal before its call's answer may go out, the journal
 * keeps only what is not stored yet, and what an earlier run left is stored
 * once, whatever part of it was stored already, torn lines skipped.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readdirSync, statSync, unlink, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../kernel/logger.ts';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { AuditJournal, readJournal } from '../../gateway/src/audit/journal.ts';
import { AuditRecorder } from '../../gateway/src/audit/recorder.ts';
import type { AuditRecord } from '../../gateway/src/audit/recorder.ts';
import { auditCall, tempDir } from './support.ts';
import { GATEWAY_COLLECTIONS } from '../../gateway/src/audit/collection.ts';

const data = tempDir('journal');
after(() => data.remove());
const logger = createLogger({ level: 'error', service: 'test', silent: true });
let n = 0;
const fresh = (): string => {
  n += 1;
  return join(data.path, `case-${n}`);
};


/** The journal's files in a gateway's data directory. */
function journalFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith('gateway-audit.jsonl'));
}

/** Records the calls and waits until their answers may go out: until they are journaled. */
function journaled(r: AuditRecorder, calls: readonly AuditRecord[]): Promise<void> {
  return new Promise((resolve) => {
    calls.forEach((c, i) => r.record(c, i === calls.length - 1 ? resolve : undefined));
  });
}

/** A recorder that never flushes by itself, so the test decides when batches are stored. */
function recorder(dir: string): { store: SqliteStore; recorder: AuditRecorder; journal: AuditJournal } {
  // The gateway's own embedded file on purpose: the test cuts its journal and reopens both as a restart would.
  const store = SqliteStore.open({ dataDir: dir, fileName: 'gateway.sqlite', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
  const journal = AuditJournal.open(join(dir, 'gateway-audit.jsonl'));
  return { store, journal, recorder: new AuditRecorder(store, logger, { journal, flushEveryMs: 3_600_000 }) };
}

async function agentsIn(store: SqliteStore): Promise<string[]> {
  const { docs } = await store.collection('audit').search({ where: null, sort: [], skip: 0, limit: 10_000 });
  return docs.map((d) => (d['client'] as { userAgent: string }).userAgent).sort();
}

test('a record is in the journal before its answer goes out, and the journal is empty once its batch is stored', async () => {
  const dir = fresh();
  const { store, recorder: r, journal } = recorder(dir);
  const file = join(dir, 'gateway-audit.jsonl');
  await journaled(r, [auditCall('one'), auditCall('two')]);
  assert.deepEqual(readJournal(file).map((x) => (x['client'] as { userAgent: string }).userAgent), ['one', 'two'], 'written before anything is stored');
  assert.deepEqual(await agentsIn(store), []);
  await r.flush();
  assert.deepEqual(await agentsIn(store), ['one', 'two']);
  assert.deepEqual(readJournal(file), [], 'cut down to nothing');
  assert.deepEqual(journalFiles(dir).map((f) => statSync(join(dir, f)).size), [0], 'one empty segment left, ready for the next records');
  assert.equal(journal.size, 0);
  await r.close();
  await store.close();
});

test('records left by a killed run are stored by the next one, once each, also those stored just before the kill', async () => {
  const dir = fresh();
  const first = recorder(dir);
  for (const ua of ['a', 'b', 'c']) first.recorder.record(auditCall(ua));
  await first.recorder.flush();
  await journaled(first.recorder, ['d', 'e'].map(auditCall));
  // A kill between a batch's commit and the journal's cut: its lines are still in the journal.
  const file = join(dir, 'gateway-audit.jsonl');
  const { docs } = await first.store.collection('audit').search({ where: null, sort: [], skip: 0, limit: 10 });
  appendFileSync(file, docs.map((d) => `${JSON.stringify(d)}\n`).join(''));
  // ...and the kill cut the last line short.
  appendFileSync(file, '{"_id":"torn-by-the-kill","time":17');
  await first.store.close(); // the process is gone: no flush, no close of the recorder

  const second = recorder(dir);
  assert.deepEqual(second.journal.recovered.map((x) => (x['client'] as { userAgent: string }).userAgent).sort(), ['a', 'b', 'c', 'd', 'e']);
  await second.recorder.flush();
  assert.deepEqual(await agentsIn(second.store), ['a', 'b', 'c', 'd', 'e'], 'every record once');
  assert.deepEqual(readJournal(file), []);
  assert.equal(existsSync(file), false, 'what the killed run left is deleted once stored');
  // The same journal replayed again (a kill during the replay) still stores nothing twice.
  writeFileSync(file, docs.map((d) => `${JSON.stringify(d)}\n`).join(''));
  const third = new AuditRecorder(second.store, logger, { journal: AuditJournal.open(file), flushEveryMs: 3_600_000 });
  await third.flush();
  assert.deepEqual(await agentsIn(second.store), ['a', 'b', 'c', 'd', 'e']);
  await third.close();
  await second.recorder.close();
  await second.store.close();
});

test('the calls of one turn wait for one journal write, then all are answered', async () => {
  const dir = fresh();
  const { store, recorder: r } = recorder(dir);
  const file = join(dir, 'gateway-audit.jsonl');
  const answered: string[] = [];
  const linesWhenAnswered: number[] = [];
  const all = new Promise<void>((resolve) => {
    for (const ua of ['x', 'y', 'z']) {
      r.record(auditCall(ua), () => {
        answered.push(ua);
        linesWhenAnswered.push(readJournal(file).length);
        if (answered.length === 3) resolve();
      });
    }
  });
  assert.deepEqual(answered, [], 'no answer goes out in the turn that recorded it');
  assert.deepEqual(readJournal(file), [], 'nor is anything written yet');
  await all;
  assert.deepEqual(answered, ['x', 'y', 'z'], 'answered in the order recorded');
  assert.deepEqual(linesWhenAnswered, [3, 3, 3], 'every line was written before the first answer');
  await r.close();
  assert.deepEqual(await agentsIn(store), ['x', 'y', 'z']);
  await store.close();
});

test('a line torn in the middle of the journal (a write cut short by a full disk) costs only that line', () => {
  const dir = fresh();
  const file = join(dir, 'gateway-audit.jsonl');
  const journal = AuditJournal.open(file);
  journal.append([{ _id: 'x1', v: 1 }]);
  journal.close();
  const [segment] = journalFiles(dir);
  // After a write cut short the journal starts its next line on a new line.
  appendFileSync(join(dir, segment!), '{"_id":"x2","v":\n{"_id":"x3","v":3}\n{"_id":"x1","v":"latest"}\n');
  assert.deepEqual(readJournal(file), [{ _id: 'x1', v: 'latest' }, { _id: 'x3', v: 3 }], 'the last line of an id wins, the torn one is skipped');
  const reopened = AuditJournal.open(file);
  assert.deepEqual(reopened.recovered, [{ _id: 'x1', v: 'latest' }, { _id: 'x3', v: 3 }]);
  assert.equal(reopened.size, 2);
  reopened.close();
});

test('stored segments are deleted whole, in the order written, and the one being written is only emptied', async () => {
  const dir = fresh();
  const file = join(dir, 'gateway-audit.jsonl');
  const journal = AuditJournal.open(file);
  journal.append([{ _id: 'a' }, { _id: 'b' }]);
  journal.rotate();
  journal.append([{ _id: 'c' }]);
  journal.rotate();
  journal.append([{ _id: 'd' }]);
  assert.equal(journalFiles(dir).length, 3);
  journal.committed(1);
  await journal.settled();
  assert.equal(journalFiles(dir).length, 3, 'a segment half stored stays');
  journal.committed(2);
  // Deleted off the event loop: gone once settled.
  await journal.settled();
  assert.deepEqual(readJournal(file).map((r) => r._id), ['d'], 'a and b, then c, were stored: their segments are gone');
  assert.equal(journalFiles(dir).length, 1);
  journal.committed(1);
  assert.deepEqual(readJournal(file), []);
  assert.equal(journal.size, 0);
  journal.append([{ _id: 'e' }]);
  assert.deepEqual(readJournal(file).map((r) => r._id), ['e'], 'the emptied segment is written on');
  journal.close();
});

test('records recorded while a batch is being stored stay in the journal until their own batch is', async () => {
  const dir = fresh();
  const { store, recorder: r, journal } = recorder(dir);
  for (let i = 0; i < 5; i += 1) r.record(auditCall(`early-${i}`));
  const flushing = r.flush();
  r.record(auditCall('during'));
  await flushing;
  const left = readJournal(join(dir, 'gateway-audit.jsonl')).map((x) => (x['client'] as { userAgent: string }).userAgent);
  assert.ok(left.every((ua) => !ua.startsWith('early')), `stored ones are cut: ${left.join(',')}`);
  await r.flush();
  assert.equal(journal.size, 0);
  assert.equal((await agentsIn(store)).length, 6);
  await r.close();
  await store.close();
});

test('a stored segment is deleted off the event loop, after the turn that cut the journal, and a kill before the deletion only replays stored records', async () => {
  const dir = fresh();
  const file = join(dir, 'gateway-audit.jsonl');
  // Deletions wait until the test lets them run, as they wait for libuv's thread pool in the gateway.
  const held: Array<() => void> = [];
  const journal = AuditJournal.open(file, { deleteFile: (f, done) => held.push(() => unlink(f, done)) });
  journal.append([{ _id: 'a' }, { _id: 'b' }]);
  journal.rotate();
  journal.append([{ _id: 'c' }]);
  journal.committed(2);
  // Deleting on the event loop held it up to 26 ms at a time (docs/audit.md).
  assert.equal(journalFiles(dir).length, 2, 'the stored segment is not deleted synchronously');
  assert.equal(held.length, 1, 'its deletion is handed off');
  assert.equal(journal.size, 1, 'and it no longer counts');
  // A kill now leaves a and b on disk: the next start reads them again, and the store skips them by id.
  assert.deepEqual(readJournal(file).map((r) => r._id), ['a', 'b', 'c']);
  const settled = journal.settled();
  held.splice(0).forEach((run) => run());
  await settled;
  assert.deepEqual(readJournal(file).map((r) => r._id), ['c']);
  assert.equal(journalFiles(dir).length, 1);
  journal.close();
});
