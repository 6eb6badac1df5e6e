/**
 * WAL checkpoints on a worker thread with its own connection, for a store
 * whose own connection commits on the event loop. SQLite runs a checkpoint
 * inside the commit that fills the WAL past 1,000 pages: it copies the
 * pages back into the database file and fsyncs it, and on the core's event
 * loop that held the archiver's deletes 20–40 ms at a time (docs/archive.md).
 * With this thread the store's connection checkpoints only if the thread
 * falls far behind (store.ts), and the thread keeps the WAL short by
 * starting it again once it has copied it whole (checkpoint-worker.mjs).
 *
 * If the thread dies, the store's connection takes checkpoints back
 * (`wal_autocheckpoint`): the WAL must not grow without bound, even if the
 * event loop pays for it again.
 */
import { Worker } from 'node:worker_threads';

const ENTRY = new URL('./checkpoint-worker.mjs', import.meta.url);

/** What the thread has done so far. */
export interface CheckpointFigures {
  /** Checkpoints that copied at least one page. */
  readonly checkpoints: number;
  /** Pages (WAL frames) copied back into the database file. */
  readonly frames: number;
  /** The last checkpoint's error, null when it succeeded. */
  readonly lastError: string | null;
}

interface Reply extends CheckpointFigures {
  readonly id: number;
}

export class CheckpointThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (figures: CheckpointFigures | null) => void>();
  private nextId = 1;
  private state: 'running' | 'closing' | 'dead' = 'running';

  /**
   * `crowdedBytes`: the WAL file's size at which background writers wait (SqliteStore.roomForBackgroundWrites), and
   * the thread cuts the file once the WAL in it is copied whole. `fallBack` runs once if the thread dies: the store's
   * connection checkpoints again.
   */
  constructor(file: string, intervalMs: number, crowdedBytes: number, private readonly fallBack: () => void) {
    this.worker = new Worker(ENTRY, { workerData: { file, intervalMs, crowdedBytes } });
    this.worker.on('message', (reply: Reply) => {
      this.waiting.get(reply.id)?.({ checkpoints: reply.checkpoints, frames: reply.frames, lastError: reply.lastError });
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) this.worker.unref();
    });
    const died = (): void => {
      if (this.state === 'dead') return;
      // Stopped on purpose is not dying: the store's connection is being closed, nothing to take back.
      if (this.state === 'running') this.fallBack();
      this.state = 'dead';
      for (const resolve of this.waiting.values()) resolve(null);
      this.waiting.clear();
    };
    this.worker.on('error', died);
    this.worker.on('exit', died);
    // Idle, it must never keep a process alive; asked something, it must until it answers. After the
    // listeners, because adding a 'message' listener refs the thread again.
    this.worker.unref();
  }

  private ask(request: { close?: true }): Promise<CheckpointFigures | null> {
    if (this.state === 'dead') return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.ref();
      this.worker.postMessage({ ...request, id });
    });
  }

  /** False once the thread has died or been stopped. */
  get running(): boolean {
    return this.state === 'running';
  }

  /** Checkpoints now and answers the thread's figures; null once it has died. */
  figures(): Promise<CheckpointFigures | null> {
    return this.ask({});
  }

  /** Ends the thread after a last checkpoint, before the store's connection closes. */
  async close(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'closing';
    await this.ask({ close: true });
    await this.worker.terminate();
  }
}
