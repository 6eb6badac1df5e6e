/**
 * A page `searchJson` answered as bytes: read back into documents, and
 * wrapped in an answer's envelope. The embedded store makes a page's bytes
 * with room before and after them, so the envelope's head and tail are
 * written around the documents in place: a page of 100 jobs is about 290 KB,
 * and copying it into a new buffer for every answer cost the event loop the
 * copy and its garbage.
 */
import type { Doc, JsonSearchResult } from './types.ts';

/** Bytes left free before and after a page's documents: more than any envelope's head or tail. */
export const ENVELOPE_ROOM = 512;

/** Buffers made by `roomyBytes` (or handed over from the search thread, which made them so): their room is ours to write. */
const roomy = new WeakSet<ArrayBufferLike>();

export function pageDocs(page: JsonSearchResult): Doc[] {
  return page.count === 0 ? [] : (JSON.parse(`[${page.json.toString('utf8')}]`) as Doc[]);
}

/** `text` in UTF-8, in an ArrayBuffer of its own (never Node's shared pool) with ENVELOPE_ROOM free on each side. */
export function roomyBytes(text: string): Buffer {
  const length = Buffer.byteLength(text);
  const bytes = Buffer.from(new ArrayBuffer(ENVELOPE_ROOM + length + ENVELOPE_ROOM), ENVELOPE_ROOM, length);
  bytes.write(text);
  roomy.add(bytes.buffer);
  return bytes;
}

/** Bytes another thread made with `roomyBytes` and transferred here: their buffer is this thread's alone now. */
export function adoptRoomy(bytes: Buffer): Buffer {
  if (bytes.byteOffset === ENVELOPE_ROOM && bytes.buffer.byteLength === bytes.length + 2 * ENVELOPE_ROOM) roomy.add(bytes.buffer);
  return bytes;
}

/** `head`, the page's bytes and `tail`: written in the page's own room when it has one, else copied together. */
export function enveloped(head: string, page: Buffer, tail: string): Buffer {
  const headBytes = Buffer.byteLength(head);
  const tailBytes = Buffer.byteLength(tail);
  if (!roomy.has(page.buffer) || headBytes > ENVELOPE_ROOM || tailBytes > ENVELOPE_ROOM) return Buffer.concat([Buffer.from(head), page, Buffer.from(tail)]);
  const start = page.byteOffset - headBytes;
  const whole = Buffer.from(page.buffer, start, headBytes + page.length + tailBytes);
  whole.write(head, 0);
  whole.write(tail, headBytes + page.length);
  // Written once: a second envelope around the same page would overwrite this one's head and tail.
  roomy.delete(page.buffer);
  return whole;
}
