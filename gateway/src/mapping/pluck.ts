/**
 * Finds a value inside JSON text without parsing it: the bytes of the value
 * at a path of object keys. Most legacy answers are one field of the core's
 * answer (`{last.data}`: the envelope unwrapped), and parsing the whole answer
 * only to serialise that field again was the largest part of a rewritten
 * call's CPU after the HTTP work itself (BENCHMARKS.md); copying the field's
 * bytes costs one scan and makes no objects.
 *
 * It works on the UTF-8 bytes: every byte of a multi-byte character is 0x80
 * or above, so none is taken for JSON's punctuation. It answers null
 * whenever it is not sure (a key written with escapes, a step into something
 * that is not an object, text that does not hold together), and the caller
 * parses instead. When a key repeats, the last one counts, as in JSON.parse.
 */

/** A legacy answer that is already JSON text: written as it is. */
export class RawJson {
  constructor(readonly bytes: Buffer) {}
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function skipSpace(buf: Buffer, i: number, end: number): number {
  while (i < end && isSpace(buf[i]!)) i += 1;
  return i;
}

/** Just past the string whose opening quote is at `i`; -1 when it does not end. */
function skipString(buf: Buffer, i: number, end: number): number {
  for (i += 1; i < end; i += 1) {
    const b = buf[i]!;
    if (b === BACKSLASH) i += 1;
    else if (b === QUOTE) return i + 1;
  }
  return -1;
}

/** Just past the value that starts at `i`; -1 when it does not hold together. */
function skipValue(buf: Buffer, i: number, end: number): number {
  const first = buf[i];
  if (first === QUOTE) return skipString(buf, i, end);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    while (i < end) {
      const b = buf[i]!;
      if (b === QUOTE) {
        i = skipString(buf, i, end);
        if (i < 0) return -1;
        continue;
      }
      if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth += 1;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        depth -= 1;
        if (depth === 0) return i + 1;
      }
      i += 1;
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  const start = i;
  while (i < end) {
    const b = buf[i]!;
    if (b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY || isSpace(b)) break;
    i += 1;
  }
  return i > start ? i : -1;
}

/** Whether the key whose quotes are at `from` and `to - 1` is `key`; null when it holds an escape. */
function keyIs(buf: Buffer, from: number, to: number, key: Buffer): boolean | null {
  for (let i = from + 1; i < to - 1; i += 1) if (buf[i] === BACKSLASH) return null;
  return to - from - 2 === key.length && buf.compare(key, 0, key.length, from + 1, to - 1) === 0;
}

/** The span of the value at `key` in the object at [start, end). */
function member(buf: Buffer, start: number, end: number, key: Buffer): readonly [number, number] | null {
  let i = skipSpace(buf, start, end);
  if (buf[i] !== OPEN_OBJECT) return null;
  i = skipSpace(buf, i + 1, end);
  if (buf[i] === CLOSE_OBJECT) return null;
  let found: readonly [number, number] | null = null;
  for (;;) {
    if (buf[i] !== QUOTE) return null;
    const keyEnd = skipString(buf, i, end);
    if (keyEnd < 0) return null;
    const same = keyIs(buf, i, keyEnd, key);
    if (same === null) return null;
    i = skipSpace(buf, keyEnd, end);
    if (buf[i] !== COLON) return null;
    i = skipSpace(buf, i + 1, end);
    const valueEnd = skipValue(buf, i, end);
    if (valueEnd < 0) return null;
    if (same) found = [i, valueEnd];
    i = skipSpace(buf, valueEnd, end);
    if (buf[i] === CLOSE_OBJECT) return found;
    if (buf[i] !== COMMA) return null;
    i = skipSpace(buf, i + 1, end);
  }
}

/** The bytes of the value at `keys` in the JSON text `buf` (the whole value for no keys), or null when not sure. */
export function pluck(buf: Buffer, keys: readonly Buffer[]): Buffer | null {
  let start = skipSpace(buf, 0, buf.length);
  let end = buf.length;
  if (keys.length === 0) {
    // The whole answer: it must be one value and nothing after it.
    end = skipValue(buf, start, buf.length);
    if (end < 0 || skipSpace(buf, end, buf.length) !== buf.length) return null;
  }
  for (const key of keys) {
    const span = member(buf, start, end, key);
    if (!span) return null;
    [start, end] = span;
  }
  return buf.subarray(start, end);
}
