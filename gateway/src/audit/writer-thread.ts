/**
 * Stores the audit's batches from a worker thread with its own connection
 * to the gateway's SQLite file, which also runs the WAL checkpoints. On the
 * event loop, a commit that ran a checkpoint held every call 4–7 ms a few
 * times a minute, and each stored chunk about 1 ms (BENCHMARKS.md); here
 * the loop only copies the records into a message, as they are journaled,
 * and the thread keeps them until the recorder commits. The gateway's own
 * connection then only reads (the report) and makes no checkpoints, so the
 * two connections never contend for them.
 */
import { Worker } from 'node:worker_threads';
import type { JournaledRecord } from './journal.ts';
import type { HoldingSink } from './sink.ts';
import type { WriterData, WriterReply, WriterRequest } from './writer-worker.ts';

const ENTRY = new URL('./writer-boot.mjs', import.meta.url);

interface Pending {
  resolve(): void;
  reject(err: Error): void;
}

export class WriterThread implements HoldingSink {
  /** Copying 200 records into a message takes about 0.15 ms of the event loop. */
  readonly chunk = 200;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /** A thread died since the recorder last asked (records it held are gone). */
  private lost = false;

  constructor(private readonly data: WriterData) {}

  /** The thread, started on first use and again after it died: the batch it lost is still the recorder's. */
  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(ENTRY, { workerData: this.data });
    const fail = (err: Error): void => {
      if (this.worker === worker) this.worker = null;
      this.lost = true;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    worker.on('message', (reply: WriterReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.error === undefined) p.resolve();
      else p.reject(new Error(`audit writer: ${reply.error}`));
    });
    worker.on('error', (err) => fail(err));
    worker.on('exit', (code) => fail(new Error(`audit writer thread exited (${code})`)));
    // Idle, the thread must not keep a gateway alive; busy, it must (a stop waits for the last batch). After the
    // listeners, because adding a 'message' listener refs the thread again.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private send(request: Omit<WriterRequest, 'id'>, worker: Worker): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ ...request, id });
    });
  }

  hold(lines: string): void {
    if (this.closed) return;
    // Posted, not answered: the thread stays unreferenced until a commit or a batch waits on it.
    this.thread().postMessage({ lines });
  }

  commit(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('audit writer: closed'));
    return this.send({ commit: true }, this.thread());
  }

  takeLoss(): boolean {
    const lost = this.lost;
    this.lost = false;
    return lost;
  }

  store(records: readonly JournaledRecord[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('audit writer: closed'));
    return this.send({ records }, this.thread());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    await this.send({ close: true }, worker).catch(() => undefined);
    await worker.terminate();
  }
}
