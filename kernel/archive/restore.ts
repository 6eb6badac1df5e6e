/**
 * Putting an archive file back.
 *
 * A restore holds the group's lease, so it never runs beside an archive pass
 * of the same group. It inserts every document of the file, skipping ids the
 * store already has (a restore killed halfway is simply run again), then
 * drops the file from the manifest and deletes it. Killed between those two,
 * the file is left on disk but no longer in the manifest: the next append to
 * that day starts it afresh.
 */
import { unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { DuplicateKeyError } from '../store/types.ts';
import type { Doc, Store } from '../store/types.ts';
import { readDocs, readManifest, writeManifest } from './files.ts';
import type { GroupSpec } from './groups.ts';
import { ArchiveLease } from './lease.ts';

export class ArchiveInputError extends Error {}

/** The group an archive file belongs to, by the kind its name starts with, among the groups given. */
export function groupOfFile(name: string, groups: readonly GroupSpec[]): GroupSpec {
  const kinds = groups.flatMap((g) => g.kinds);
  const kind = /^([a-z_]+)-\d{4}-\d{2}-\d{2}\.jsonl\.gz$/.exec(basename(name))?.[1];
  const group = groups.find((g) => kind !== undefined && g.kinds.includes(kind));
  if (!group) throw new ArchiveInputError(`${name} is not an archive file name (<${kinds.join('|')}>-YYYY-MM-DD.jsonl.gz)`);
  return group;
}

export interface RestoreOptions {
  readonly store: Store;
  readonly dir: string;
  readonly file: string;
  /** The groups whose files may be restored here: the service's own. */
  readonly groups: readonly GroupSpec[];
  readonly owner: string;
  readonly leaseMs: number;
  /** How long to wait for a running archiver to let go of the lease. */
  readonly waitMs: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the group's lease is ours, or gives up after `waitMs`. */
export async function takeLease(lease: ArchiveLease, waitMs: number): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    if (await lease.acquire()) return true;
    if (Date.now() >= until) return false;
    await sleep(250);
  }
}

export async function restoreFile(options: RestoreOptions): Promise<{ inserted: number; skipped: number }> {
  const name = basename(options.file);
  const group = groupOfFile(name, options.groups).name;
  const lease = new ArchiveLease(options.store, group, options.owner, options.leaseMs);
  if (!(await takeLease(lease, options.waitMs))) throw new ArchiveInputError(`another process is archiving ${group}; try again later`);
  try {
    const manifest = await readManifest(options.dir, group);
    const entry = manifest.files[name];
    if (!entry) throw new ArchiveInputError(`${name} is not in the archive manifest of ${options.dir}`);
    const docs = await readDocs(options.dir, name, entry);
    const collection = options.store.collection(entry.kind);
    let inserted = 0;
    let skipped = 0;
    for (const doc of docs) {
      try {
        await collection.insertOne(doc as Doc);
        inserted += 1;
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
        skipped += 1;
      }
      if ((inserted + skipped) % 100 === 0) await lease.update();
    }
    const files = { ...manifest.files };
    delete files[name];
    await writeManifest(options.dir, { ...manifest, files });
    await unlink(join(options.dir, name)).catch(() => undefined);
    return { inserted, skipped };
  } finally {
    await lease.release();
  }
}
