/**
 * The audit records not yet in the store, one JSON line each, so the record
 * of an answered call survives a killed gateway. The lines of one turn's
 * calls are written with one write(2) before their answers go out. There is
 * no fsync: what a killed process wrote stays in the kernel, and surviving a
 * killed process is what is asked; a power cut may lose the last lines.
 *
 * The journal is a run of segment files (`gateway-audit.jsonl.<n>`). Records
 * reach the store in the order they were journaled, so the journal only
 * counts: once every record of a segment is stored, the file is deleted. A
 * new segment is begun when a batch is about to be stored. Rewriting one file
 * down to what was still waiting held the event loop for milliseconds at a
 * time and kept every line in memory until it was stored (BENCHMARKS.md).
 *
 * Only the appends, which an answer waits for, are synchronous. A stored
 * segment is deleted, and a finished one closed, on libuv's thread pool:
 * deleting a file on the event loop took about 1 ms at the median and up to
 * 26 ms (ext4 discarding the freed blocks), every tenth of a second under
 * load. A segment whose deletion has not finished when the gateway is killed
 * is read again at the next start; its records are in the store already and
 * are skipped there by their ids.
 */
import { close, closeSync, ftruncateSync, mkdirSync, openSync, readdirSync, readFileSync, unlink, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface JournaledRecord {
  readonly _id: string;
  readonly [field: string]: unknown;
}

/** Records as the journal writes them: one JSON line each. */
export function journalLines(records: readonly JournaledRecord[]): string {
  let text = '';
  for (const record of records) text += `${JSON.stringify(record)}\n`;
  return text;
}

/** The journal's files, oldest first: the single file of earlier versions, then the segments in order. */
function filesOf(file: string): string[] {
  const prefix = `${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const segments = names.filter((n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length))).sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)));
  return [...(names.includes(basename(file)) ? [basename(file)] : []), ...segments].map((n) => join(dirname(file), n));
}

/** The records of a journal, the last line of each id winning; lines torn by a kill or a full disk are skipped. */
export function readJournal(file: string): JournaledRecord[] {
  return recordsIn(filesOf(file));
}

function recordsIn(files: readonly string[]): JournaledRecord[] {
  const byId = new Map<string, JournaledRecord>();
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      if (line.length === 0) continue;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        continue;
      }
      if (record !== null && typeof record === 'object' && typeof (record as { _id?: unknown })._id === 'string') byId.set((record as JournaledRecord)._id, record as JournaledRecord);
    }
  }
  return [...byId.values()];
}

/** Deletes a file at once; one already gone is fine. */
function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Deletes a file off the event loop and calls back (fs.unlink; tests pass one they can hold). */
export type DeleteFile = (file: string, done: (err: NodeJS.ErrnoException | null) => void) => void;

export interface JournalOptions {
  readonly deleteFile?: DeleteFile;
}

interface Segment {
  readonly files: readonly string[];
  /** Records journaled into it, whether or not their lines were written whole. */
  count: number;
}

export class AuditJournal {
  /** Oldest first; the last is the one being written. */
  private readonly segments: Segment[] = [];
  /** Records of the oldest segment already stored. */
  private stored = 0;
  private fd: number;
  private next: number;
  /** The last write may have left half a line: the next one starts on a new line. */
  private torn = false;
  /** Deletions and closes under way on the thread pool. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Told of a deletion or close that failed (the journal then keeps more than it needs, which is harmless). */
  onBackgroundError: (err: Error) => void = () => undefined;

  private constructor(private readonly file: string, readonly recovered: readonly JournaledRecord[], earlier: readonly string[], private readonly deleteFile: DeleteFile) {
    // What an earlier run left is one segment: its records go to the store first, as one group.
    if (recovered.length > 0) this.segments.push({ files: earlier, count: recovered.length });
    else for (const f of earlier) removeFile(f);
    this.next = earlier.length > 0 ? Number(/\.(\d+)$/.exec(earlier[earlier.length - 1]!)?.[1] ?? 0) + 1 : 1;
    this.fd = this.openSegment();
  }

  /** Opens the journal, keeping what an earlier run left in it as `recovered`. */
  static open(file: string, options: JournalOptions = {}): AuditJournal {
    mkdirSync(dirname(file), { recursive: true });
    const earlier = filesOf(file);
    return new AuditJournal(file, recordsIn(earlier), earlier, options.deleteFile ?? unlink);
  }

  /** Opens the next segment file and makes it the one written; throws (changing nothing) when it cannot be made. */
  private openSegment(): number {
    const file = `${this.file}.${this.next}`;
    const fd = openSync(file, 'a');
    this.next += 1;
    this.segments.push({ files: [file], count: 0 });
    this.torn = false;
    return fd;
  }

  /**
   * Writes the records' lines in one write and answers the text written;
   * throws when it could not be written whole.
   */
  append(records: readonly JournaledRecord[]): string {
    if (this.fd < 0) throw new Error('audit journal: closed');
    // Counted before the write: they go to the store whatever happens to their lines.
    this.segments[this.segments.length - 1]!.count += records.length;
    const text = (this.torn ? '\n' : '') + journalLines(records);
    this.torn = true;
    const written = writeSync(this.fd, text);
    if (written !== Buffer.byteLength(text)) throw new Error(`audit journal: only ${written} of ${Buffer.byteLength(text)} bytes written`);
    this.torn = false;
    return text;
  }

  /**
   * Every record of the segments not yet deleted, read back from their files:
   * what a writer that lost the records it was handed must be handed again.
   * Records of them already stored come too, and are skipped by the store.
   */
  unstored(): JournaledRecord[] {
    return recordsIn(this.segments.flatMap((s) => s.files));
  }

  /** Begins a new segment, so the records journaled so far can be deleted together once stored. */
  rotate(): void {
    if (this.fd < 0 || this.segments[this.segments.length - 1]!.count === 0) return;
    // On a full disk the new file may not be made: then this one is kept and written on.
    const fd = this.openSegment();
    const done = this.fd;
    this.fd = fd;
    this.background((cb) => close(done, cb));
  }

  /** Runs a file operation on the thread pool, keeping it in `inFlight` until it ends. */
  private background(op: (cb: (err: NodeJS.ErrnoException | null) => void) => void): void {
    const running = new Promise<void>((resolve) => {
      op((err) => {
        if (err && err.code !== 'ENOENT') this.onBackgroundError(err);
        resolve();
      });
    });
    this.inFlight.add(running);
    void running.then(() => this.inFlight.delete(running));
  }

  /** Resolves once the deletions and closes begun so far have ended. */
  async settled(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** The next `count` records, in the order journaled, are in the store: segments they complete are deleted. */
  committed(count: number): void {
    this.stored += count;
    while (this.segments.length > 0 && this.stored >= this.segments[0]!.count && this.segments[0]!.count > 0) {
      const done = this.segments[0]!;
      if (this.segments.length === 1) {
        // The segment being written: emptied rather than replaced.
        ftruncateSync(this.fd, 0);
        this.torn = false;
        this.stored -= done.count;
        done.count = 0;
        return;
      }
      for (const f of done.files) this.background((cb) => this.deleteFile(f, cb));
      this.segments.shift();
      this.stored -= done.count;
    }
  }

  /** Records journaled and not yet stored. */
  get size(): number {
    return this.segments.reduce((n, s) => n + s.count, 0) - this.stored;
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    // A closed descriptor's number is soon another file's: never write to it again.
    this.fd = -1;
  }
}
