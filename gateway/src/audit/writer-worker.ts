/**
 * The audit writer thread (writer-thread.ts starts it): its own connection
 * to the gateway's SQLite file stores the batches it is sent, each as one
 * transaction, and runs the WAL checkpoints SQLite makes at commit, so
 * neither holds the gateway's event loop. Records handed over as they are
 * journaled wait here, not on the event loop, until the recorder commits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteStore } from '../../../kernel/index.ts';
import { GATEWAY_COLLECTIONS } from './collection.ts';
import type { JournaledRecord } from './journal.ts';
import { storeRecords } from './sink.ts';

export interface WriterData {
  readonly dataDir: string;
  readonly fileName: string;
}

export type WriterRequest =
  | { readonly id: number; readonly records: readonly JournaledRecord[] }
  /** Records to keep until the next commit, as journal lines; not answered. */
  | { readonly lines: string }
  | { readonly id: number; readonly commit: true }
  | { readonly id: number; readonly close: true };
export type WriterReply = { readonly id: number; readonly error?: string };

const { dataDir, fileName } = workerData as WriterData;
// Checkpoints stay automatic on this connection: they run here, at the commit that fills the WAL.
const store = SqliteStore.open({ dataDir, fileName, countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
const port = parentPort!;

/** Records handed over and not yet stored, in the order handed; one handed twice (a replay) is kept once. */
let held = new Map<string, JournaledRecord>();

function keep(lines: string): void {
  for (const line of lines.split('\n')) {
    if (line.length === 0) continue;
    try {
      const record = JSON.parse(line) as JournaledRecord;
      held.set(record._id, record);
    } catch {
      // Half a line, left by a journal write that failed: the record came whole in a later hand-over or is lost with it.
    }
  }
}

/** Stores what is held; on failure keeps it, ahead of what came meanwhile, for the next commit. */
async function commit(): Promise<void> {
  const batch = held;
  held = new Map();
  try {
    if (batch.size > 0) await storeRecords(store, [...batch.values()]);
  } catch (err) {
    for (const [id, record] of held) batch.set(id, record);
    held = batch;
    throw err;
  }
}

port.on('message', (request: WriterRequest) => {
  if ('lines' in request) {
    keep(request.lines);
    return;
  }
  void (async () => {
    let reply: WriterReply = { id: request.id };
    try {
      if ('close' in request) {
        await commit();
        await store.close();
        port.postMessage(reply);
        port.close();
        return;
      }
      if ('commit' in request) await commit();
      else await storeRecords(store, request.records);
    } catch (err) {
      reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  })();
});
