/**
 * The audit records not yet in the store, one JSON line each, so the record
 * of an answered call survives a killed gateway. The lines of one turn's calls are
 * written with one write(2) before their answers go out. There is no fsync: what a killed
 * process wrote stays in the kernel, and surviving a killed process is what
 * is asked; a power cut may lose the last lines. Once a batch is in the
 * store the file is cut down to the records still waiting, synchronously,
 * so no record can fall between the store and the journal.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface JournaledRecord {
  readonly _id: string;
  readonly [field: string]: unknown;
}

/** The records of a journal, the last line of each id winning; lines torn by a kill or a full disk are skipped. */
export function readJournal(file: string): JournaledRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const byId = new Map<string, JournaledRecord>();
  for (const line of text.split('\n')) {
    if (line.length === 0) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (record !== null && typeof record === 'object' && typeof (record as { _id?: unknown })._id === 'string') byId.set((record as JournaledRecord)._id, record as JournaledRecord);
  }
  return [...byId.values()];
}

export class AuditJournal {
  /** Each waiting record's latest line, in the order first written. */
  private readonly waiting = new Map<string, string>();
  private fd: number;
  /** The last write may have left half a line: the next one starts on a new line. */
  private torn = false;

  private constructor(private readonly file: string, readonly recovered: readonly JournaledRecord[]) {
    for (const r of recovered) this.waiting.set(r._id, `${JSON.stringify(r)}\n`);
    this.fd = openSync(file, 'a');
  }

  /** Opens the journal, keeping what an earlier run left in it as `recovered`. */
  static open(file: string): AuditJournal {
    mkdirSync(dirname(file), { recursive: true });
    const journal = new AuditJournal(file, readJournal(file));
    // Rewritten at once so a torn line left by a kill is gone before anything is appended.
    journal.rewrite();
    return journal;
  }

  /** Writes the records' lines in one write; throws when they could not be written whole (they are still kept for the next rewrite). */
  append(records: readonly JournaledRecord[]): void {
    if (this.fd < 0) throw new Error('audit journal: closed');
    let text = this.torn ? '\n' : '';
    for (const record of records) {
      const line = `${JSON.stringify(record)}\n`;
      this.waiting.set(record._id, line);
      text += line;
    }
    this.torn = true;
    const written = writeSync(this.fd, text);
    if (written !== Buffer.byteLength(text)) throw new Error(`audit journal: only ${written} of ${Buffer.byteLength(text)} bytes written`);
    this.torn = false;
  }

  /** The records with these ids are in the store: the file keeps only the others. */
  committed(ids: Iterable<string>): void {
    for (const id of ids) this.waiting.delete(id);
    this.rewrite();
  }

  get size(): number {
    return this.waiting.size;
  }

  private rewrite(): void {
    if (this.waiting.size === 0) {
      ftruncateSync(this.fd, 0);
      this.torn = false;
      return;
    }
    // A rename replaces the file whole, so a kill leaves the old journal or the new one, never a mix.
    const next = `${this.file}.next`;
    const fd = openSync(next, 'w');
    try {
      const text = [...this.waiting.values()].join('');
      if (writeSync(fd, text) !== Buffer.byteLength(text)) throw new Error('audit journal: rewrite cut short');
    } finally {
      closeSync(fd);
    }
    renameSync(next, this.file);
    closeSync(this.fd);
    this.fd = openSync(this.file, 'a');
    this.torn = false;
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    // A closed descriptor's number is soon another file's: never write to it again.
    this.fd = -1;
  }
}
