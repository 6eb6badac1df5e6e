/**
 * The audit writer thread (writer-thread.ts starts it): its own connection
 * to the gateway's SQLite file stores the batches it is sent, each as one
 * transaction, and runs the WAL checkpoints SQLite makes at commit, so
 * neither holds the gateway's event loop.
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

export type WriterRequest = { readonly id: number; readonly records: readonly JournaledRecord[] } | { readonly id: number; readonly close: true };
export type WriterReply = { readonly id: number; readonly error?: string };

const { dataDir, fileName } = workerData as WriterData;
// Checkpoints stay automatic on this connection: they run here, at the commit that fills the WAL.
const store = SqliteStore.open({ dataDir, fileName, countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
const port = parentPort!;

port.on('message', (request: WriterRequest) => {
  void (async () => {
    let reply: WriterReply = { id: request.id };
    try {
      if ('close' in request) {
        await store.close();
        port.postMessage(reply);
        port.close();
        return;
      }
      await storeRecords(store, request.records);
    } catch (err) {
      reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  })();
});
