/**
 * One archive pass for one group: under the group's lease, batch after
 * batch, due documents are written to the archive and then removed from the
 * store. Each batch goes through these steps, and each crash window between
 * them is closed by the next holder of the lease (docs/archive.md):
 *
 *   1. the batch's ids are written into the lease as `pending`;
 *   2. each file gets a gzip member appended at its committed length, fsynced;
 *   3. the manifest, with the new lengths and `lastBatch`, replaces the old one;
 *   4. the documents are deleted, tasks before their job;
 *   5. `pending` is cleared.
 *
 * Killed before 3, the manifest still names the old lengths: the bytes
 * written are debris (cut off by the next append) and every document is
 * still in the store, so `pending` is dropped. Killed after 3, `lastBatch`
 * names the pending batch: its documents are archived, so the rest of its
 * deletes are done. A document is thus always in the store, the archive or
 * (between 3 and 4) both, never neither, and never twice in the archive.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/types.ts';
import { appendMember, readManifest, writeManifest } from './files.ts';
import type { ArchiveKind, FileEntry, Line, Manifest } from './files.ts';
import { DueWindow, yieldToLoop } from './groups.ts';
import type { DueItem, GroupSpec } from './groups.ts';
import { ArchiveLease } from './lease.ts';
import type { PendingBatch } from './lease.ts';

/**
 * Deletes per store batch, with a yield to the event loop after each: one
 * commit for all of them in the embedded store, which costs a third of 25
 * commits and writes far less to its WAL (docs/archive.md).
 */
const DELETES_PER_SLICE = 25;

/** How often an archiver the store asked to wait asks again. */
const ROOM_POLL_MS = 20;
/**
 * How long an archiver waits for the store before it writes a batch all the
 * same: a reader that never ends must not stop archiving, only slow it.
 */
const ROOM_WAIT_MAX_MS = 30_000;

export interface ArchiverOptions {
  readonly store: Store;
  readonly group: GroupSpec;
  /** `DATA_DIR/archive`. */
  readonly dir: string;
  /** Names this process in the lease. */
  readonly owner: string;
  readonly leaseMs: number;
  /** Primary documents (jobs or audit records) per batch. */
  readonly batchSize: number;
  readonly logger: Logger;
  readonly now?: () => number;
}

export interface PassResult {
  /** False when another process held the lease: nothing was done. */
  readonly ran: boolean;
  readonly archived: Record<ArchiveKind, number>;
  readonly batches: number;
  /** Time spent waiting for the store to take more writes (`Store.roomForBackgroundWrites`). */
  readonly waitedMs: number;
}

export class Archiver {
  private stopping = false;
  private readonly now: () => number;

  constructor(private readonly options: ArchiverOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Ends a pass in progress after its current batch. */
  stop(): void {
    this.stopping = true;
  }

  /** Archives every document of the group due at `cutoff` (epoch ms), unless another process holds the lease. */
  async pass(cutoff: number): Promise<PassResult> {
    const { store, group, owner, leaseMs } = this.options;
    const archived: Record<ArchiveKind, number> = Object.fromEntries(group.kinds.map((kind) => [kind, 0]));
    const lease = new ArchiveLease(store, group.name, owner, leaseMs, this.now);
    if (!(await lease.acquire())) return { ran: false, archived, batches: 0, waitedMs: 0 };
    let batches = 0;
    let waitedMs = 0;
    let finished = false;
    try {
      const pending = lease.current.pending;
      if (pending) await this.recover(lease, await readManifest(this.options.dir, group.name), pending);
      const window = new DueWindow(store, group, cutoff, this.options.batchSize);
      while (!this.stopping) {
        waitedMs += await this.roomToWrite(lease);
        if (this.stopping) break;
        const ids = await window.next();
        if (ids.length === 0) {
          finished = true;
          break;
        }
        await yieldToLoop();
        const items = await group.expand(store, ids);
        await this.commit(lease, items);
        for (const item of items) archived[item.kind] = (archived[item.kind] ?? 0) + 1;
        batches += 1;
        await yieldToLoop();
      }
      // Only a completed pass proves that nothing older than the cutoff is left.
      const before = lease.current.archivedBefore;
      if (finished && (batches > 0 || before !== null) && (before === null || before < cutoff)) await lease.update({ archivedBefore: cutoff });
      return { ran: true, archived, batches, waitedMs };
    } finally {
      await lease.release();
    }
  }

  /**
   * Waits while the store asks background writers to (its WAL held long by readers), renewing the lease
   * meanwhile; answers how long it waited. Between batches, so nothing is pending while it waits.
   */
  private async roomToWrite(lease: ArchiveLease): Promise<number> {
    const { store, leaseMs, logger, group } = this.options;
    if (store.roomForBackgroundWrites()) return 0;
    const started = performance.now();
    let renewed = started;
    while (!this.stopping && !store.roomForBackgroundWrites()) {
      const now = performance.now();
      if (now - started >= ROOM_WAIT_MAX_MS) {
        logger.warn('archive: the store has asked background writers to wait for long; archiving a batch all the same', { group: group.name, waitedMs: Math.round(now - started) });
        break;
      }
      if (now - renewed >= leaseMs / 4) {
        await lease.update();
        renewed = now;
      }
      await new Promise((resolve) => setTimeout(resolve, ROOM_POLL_MS));
    }
    return performance.now() - started;
  }

  /** Finishes (after step 3) or forgets (before it) the batch a killed holder left. */
  private async recover(lease: ArchiveLease, manifest: Manifest, pending: PendingBatch): Promise<void> {
    if (manifest.lastBatch === pending.batch) {
      this.options.logger.info('archive: finishing the deletes of a batch a stopped archiver committed', { group: this.options.group.name, batch: pending.batch });
      await this.deleteAll(pending);
    }
    await lease.update({ pending: null });
  }

  private async commit(lease: ArchiveLease, items: readonly DueItem[]): Promise<void> {
    const { dir, group } = this.options;
    const batch = randomUUID();
    const ids: Partial<Record<ArchiveKind, string[]>> = {};
    for (const kind of group.kinds) ids[kind] = items.filter((i) => i.kind === kind).map((i) => i.id);
    const pending: PendingBatch = { batch, ids };
    await lease.update({ pending });
    // Read again under the fresh claim: a holder before us may have moved the committed lengths.
    const manifest = await readManifest(dir, group.name);
    const byFile = new Map<string, { kind: ArchiveKind; day: string; lines: Line[] }>();
    for (const item of items) {
      const key = `${item.kind}-${item.day}`;
      let file = byFile.get(key);
      if (!file) byFile.set(key, (file = { kind: item.kind, day: item.day, lines: [] }));
      file.lines.push({ id: item.id, json: item.json });
    }
    const written: Array<[string, FileEntry]> = [];
    for (const [key, file] of byFile) {
      const name = `${key}.jsonl.gz`;
      written.push([name, await appendMember(dir, file.kind, file.day, manifest.files[name], file.lines)]);
    }
    // The files are on disk; renewing the claim here keeps a holder that stalled past its lease from committing.
    await lease.update();
    const next: Manifest = { ...manifest, lastBatch: batch, files: { ...manifest.files, ...Object.fromEntries(written) } };
    await writeManifest(dir, next);
    await this.deleteAll(pending);
    await lease.update({ pending: null });
  }

  private async deleteAll(pending: PendingBatch): Promise<void> {
    const { store, group } = this.options;
    for (const kind of group.kinds) {
      const ids = pending.ids[kind] ?? [];
      for (let i = 0; i < ids.length; i += DELETES_PER_SLICE) {
        await store.batch(ids.slice(i, i + DELETES_PER_SLICE).map((id) => ({ op: 'delete' as const, collection: kind, id })));
        await yieldToLoop();
      }
    }
  }
}
