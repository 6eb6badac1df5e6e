/**
 * Putting an archive file back, and finding an archived job.
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
import type { FileEntry, GroupName } from './files.ts';
import { ArchiveLease } from './lease.ts';

export class ArchiveInputError extends Error {}

export function groupOfFile(name: string): GroupName {
  const kind = /^(jobs|tasks|audit)-\d{4}-\d{2}-\d{2}\.jsonl\.gz$/.exec(basename(name))?.[1];
  if (!kind) throw new ArchiveInputError(`${name} is not an archive file name (<jobs|tasks|audit>-YYYY-MM-DD.jsonl.gz)`);
  return kind === 'audit' ? 'audit' : 'jobs';
}

export interface RestoreOptions {
  readonly store: Store;
  readonly dir: string;
  readonly file: string;
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
  const group = groupOfFile(name);
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

export interface FoundJob {
  readonly file: string;
  readonly job: Record<string, unknown>;
  readonly tasks: Array<Record<string, unknown>>;
}

/** The archived job with this id and its tasks, found through the manifest's id ranges; null when not archived. */
export async function findJob(dir: string, jobId: string): Promise<FoundJob | null> {
  const manifest = await readManifest(dir, 'jobs');
  const candidates = Object.entries(manifest.files).filter(([, e]) => e.kind === 'jobs' && e.minId <= jobId && jobId <= e.maxId);
  for (const [name, entry] of candidates) {
    const job = (await readDocs(dir, name, entry)).find((d) => d['_id'] === jobId);
    if (!job) continue;
    const tasksName = `tasks-${entry.day}.jsonl.gz`;
    const tasksEntry: FileEntry | undefined = manifest.files[tasksName];
    const tasks = tasksEntry ? (await readDocs(dir, tasksName, tasksEntry)).filter((t) => (t['job'] as Record<string, unknown> | undefined)?.['_id'] === jobId) : [];
    return { file: name, job, tasks };
  }
  return null;
}
