/**
 * Archive files and their manifest under `DATA_DIR/archive/`.
 *
 * A file holds one kind of document (jobs, tasks, audit) for one UTC day:
 * `<kind>-<YYYY-MM-DD>.jsonl.gz`, JSON Lines compressed as a sequence of gzip
 * members, one member per batch (gunzip reads them as one stream). The
 * manifest of a group (`manifest-<group>.json`) is the truth about what the
 * files hold: for each file its document count, id range, committed length
 * and the CRC-32 of those bytes. Bytes past the committed length are what a
 * killed archiver left half-written; the next append cuts them off first.
 * The manifest is replaced atomically (write, fsync, rename, fsync directory).
 */
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32, gunzip as gunzipCb, gzip as gzipCb } from 'node:zlib';

const gzip = promisify(gzipCb);
const gunzip = promisify(gunzipCb);

/** The collection an archive file's documents came from (`jobs`, `tasks`, `audit`). */
export type ArchiveKind = string;
/** An archive group's name (`jobs`, `audit`): the service that keeps the documents declares it (kernel/archive/groups.ts). */
export type GroupName = string;

export interface FileEntry {
  readonly kind: ArchiveKind;
  /** UTC day, YYYY-MM-DD: the day a job finished (its tasks go with it) or an audit record was written. */
  readonly day: string;
  readonly count: number;
  /** Smallest and largest `_id` in the file, compared as strings. */
  readonly minId: string;
  readonly maxId: string;
  /** Committed length in bytes; anything after it is debris of a killed write. */
  readonly bytes: number;
  /** CRC-32 (zlib) of the committed bytes. */
  readonly crc32: number;
}

export interface Manifest {
  readonly version: 1;
  readonly group: GroupName;
  /** The last batch whose files were committed; recovery compares the lease's unfinished batch with it. */
  lastBatch: string | null;
  files: Record<string, FileEntry>;
}

export function archiveDir(dataDir: string): string {
  return join(dataDir, 'archive');
}

export function fileName(kind: ArchiveKind, day: string): string {
  return `${kind}-${day}.jsonl.gz`;
}

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function manifestPath(dir: string, group: GroupName): string {
  return join(dir, `manifest-${group}.json`);
}

export async function readManifest(dir: string, group: GroupName): Promise<Manifest> {
  try {
    return JSON.parse(await readFile(manifestPath(dir, group), 'utf8')) as Manifest;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, group, lastBatch: null, files: {} };
    throw err;
  }
}

/** Makes a rename or a new file in `dir` survive a crash. */
async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, constants.O_RDONLY);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  const target = manifestPath(dir, manifest.group);
  const tmp = `${target}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(`${JSON.stringify(manifest, null, 1)}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, target);
  await syncDir(dir);
}

export interface Line {
  readonly id: string;
  /** The document as JSON text, one line. */
  readonly json: string;
}

/**
 * Appends one gzip member holding `lines` to the file at its committed
 * length (cutting off debris first) and fsyncs it. Answers the entry the
 * manifest must record once every file of the batch is written.
 */
export async function appendMember(dir: string, kind: ArchiveKind, day: string, previous: FileEntry | undefined, lines: readonly Line[]): Promise<FileEntry> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, fileName(kind, day));
  // Compression runs on the thread pool, so a batch never holds the event loop for it.
  const member = await gzip(Buffer.from(lines.map((l) => `${l.json}\n`).join('')));
  const committed = previous?.bytes ?? 0;
  const fh = await open(path, constants.O_RDWR | constants.O_CREAT, 0o640);
  try {
    await fh.truncate(committed);
    await fh.write(member, 0, member.length, committed);
    await fh.sync();
  } finally {
    await fh.close();
  }
  if (!previous) await syncDir(dir);
  let minId = previous?.minId ?? lines[0]!.id;
  let maxId = previous?.maxId ?? lines[0]!.id;
  for (const { id } of lines) {
    if (id < minId) minId = id;
    if (id > maxId) maxId = id;
  }
  return { kind, day, count: (previous?.count ?? 0) + lines.length, minId, maxId, bytes: committed + member.length, crc32: crc32(member, previous?.crc32 ?? 0) };
}

export class ArchiveCorruptError extends Error {}

/** The documents a file holds, read up to its committed length and checked against the manifest's CRC. */
export async function readDocs(dir: string, name: string, entry: FileEntry): Promise<Array<Record<string, unknown>>> {
  const fh = await open(join(dir, name), 'r');
  let bytes: Buffer;
  try {
    bytes = Buffer.alloc(entry.bytes);
    const { bytesRead } = await fh.read(bytes, 0, entry.bytes, 0);
    if (bytesRead !== entry.bytes) throw new ArchiveCorruptError(`${name}: ${bytesRead} bytes on disk, the manifest says ${entry.bytes}`);
  } finally {
    await fh.close();
  }
  if (crc32(bytes) !== entry.crc32) throw new ArchiveCorruptError(`${name}: checksum does not match the manifest`);
  const text = (await gunzip(bytes)).toString('utf8');
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
}
