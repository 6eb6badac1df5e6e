/**
 * The archiver's lease: one document per group in `archive_state`, naming
 * its owner and when the claim expires. It is taken as the scheduler takes a
 * run: created with `insertOne` (the `_id` is unique, so one creator wins)
 * or taken over with `replaceIfRev` once expired, so of several processes
 * sharing the store exactly one archives a group at a time. Every write the
 * holder makes goes through `replaceIfRev` too, and extends the claim; a
 * holder that finds the revision moved has lost the lease and stops.
 *
 * The same document carries the batch in progress (`pending`): written
 * before any file, cleared after the last delete, so whoever holds the lease
 * next can finish or forget it (docs/archive.md).
 */
import { DuplicateKeyError } from '../store/types.ts';
import type { Doc, Store } from '../store/types.ts';
import type { ArchiveKind, GroupName } from './files.ts';

export interface PendingBatch {
  readonly batch: string;
  /** The ids the batch archives, by kind, in the order they are deleted. */
  readonly ids: Partial<Record<ArchiveKind, string[]>>;
}

export interface ArchiveState {
  readonly _id: GroupName;
  readonly owner: string;
  /** Epoch ms after which another process may take the lease. */
  readonly expiresAt: number;
  readonly _rev: number;
  readonly pending: PendingBatch | null;
  /** Everything of the group older than this (epoch ms) has been archived; null while nothing has been. */
  readonly archivedBefore: number | null;
}

export class LeaseLostError extends Error {
  constructor(group: string) {
    super(`archive lease for ${group} lost to another process`);
  }
}

/** The group's state as stored (for the audit report's "history begins" line), or null. */
export async function readArchiveState(store: Store, group: GroupName): Promise<ArchiveState | null> {
  return (await store.collection('archive_state').findById(group)) as ArchiveState | null;
}

export class ArchiveLease {
  private state: ArchiveState | null = null;

  constructor(
    private readonly store: Store,
    readonly group: GroupName,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get current(): ArchiveState {
    if (!this.state) throw new Error('archive lease not held');
    return this.state;
  }

  private get collection() {
    return this.store.collection('archive_state');
  }

  /** Takes the lease if it is free, expired or already ours; false when another process holds it. */
  async acquire(): Promise<boolean> {
    const found = (await this.collection.findById(this.group)) as ArchiveState | null;
    const now = this.now();
    if (!found) {
      const fresh: ArchiveState = { _id: this.group, owner: this.owner, expiresAt: now + this.leaseMs, _rev: 1, pending: null, archivedBefore: null };
      try {
        await this.collection.insertOne(fresh as unknown as Doc);
      } catch (err) {
        if (err instanceof DuplicateKeyError) return false;
        throw err;
      }
      this.state = fresh;
      return true;
    }
    if (found.owner !== this.owner && found.expiresAt > now) return false;
    const taken: ArchiveState = { ...found, owner: this.owner, expiresAt: now + this.leaseMs, _rev: found._rev + 1 };
    if (!(await this.collection.replaceIfRev(taken as unknown as Doc, found._rev))) return false;
    this.state = taken;
    return true;
  }

  /** Writes changes and extends the claim; throws LeaseLostError when another process took over. */
  async update(changes: Partial<Pick<ArchiveState, 'pending' | 'archivedBefore'>> = {}): Promise<void> {
    const held = this.current;
    const next: ArchiveState = { ...held, ...changes, expiresAt: this.now() + this.leaseMs, _rev: held._rev + 1 };
    if (!(await this.collection.replaceIfRev(next as unknown as Doc, held._rev))) {
      this.state = null;
      throw new LeaseLostError(this.group);
    }
    this.state = next;
  }

  /** Lets the next process in at once rather than after expiry; a lost lease is left alone. */
  async release(): Promise<void> {
    if (!this.state) return;
    const held = this.state;
    this.state = null;
    await this.collection.replaceIfRev({ ...held, expiresAt: 0, _rev: held._rev + 1 } as unknown as Doc, held._rev).catch(() => false);
  }
}
