/**
 * Documents as MongoDB keeps them, so that whatever the SQLite store holds
 * MongoDB holds too and gives back unchanged (docs/deployment.md):
 * - keys BSON cannot carry or the server reads as operators are escaped:
 *   a key that starts with `$` (refused at the top level of a replacement,
 *   and `{$ref, $id}` would come back as a DBRef), a key holding NUL (BSON
 *   keys end at NUL), and a key that starts with the escape mark itself, so
 *   decoding is exact;
 * - a document over the BSON size limit is refused before it is sent, the
 *   same way on both stores.
 * Search fields never need escaping (their names are plain), so filters and
 * sorts are compiled as they are.
 */
import { checkDocumentSize } from '../limits.ts';
import type { Doc } from '../types.ts';

/** A private-use character: no client key starts with it by accident, and one that does is escaped too. */
export const ESCAPE_MARK = '\uE000';

function needsEscape(key: string): boolean {
  return key.startsWith('$') || key.startsWith(ESCAPE_MARK) || key.includes('\0');
}

/** `%`, NUL and a leading `$` percent-encoded after the mark; nothing else changes. */
export function escapeKey(key: string): string {
  if (!needsEscape(key)) return key;
  return ESCAPE_MARK + key.replace(/%/g, '%25').replace(/\0/g, '%00').replace(/^\$/, '%24');
}

export function unescapeKey(key: string): string {
  if (!key.startsWith(ESCAPE_MARK)) return key;
  return key.slice(ESCAPE_MARK.length).replace(/%(25|00|24)/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function mapKeys(value: unknown, rename: (key: string) => string, test: (key: string) => boolean): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i += 1) {
      const v = mapKeys(value[i], rename, test);
      if (v !== value[i]) (out ??= value.slice())[i] = v;
    }
    return out ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  let changed = false;
  const entries = Object.keys(obj).map((key): [string, unknown] => {
    const v = mapKeys(obj[key], rename, test);
    if (v !== obj[key] || test(key)) changed = true;
    return [key, v];
  });
  if (!changed) return value;
  // Rebuilt in the same key order, so a document reads back as it was written;
  // defined, not assigned, so a `__proto__` key stays data.
  const out: Record<string, unknown> = {};
  for (const [key, v] of entries) Object.defineProperty(out, rename(key), { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * A plain JSON copy with keys escaped, checked against the size limit.
 * The JSON round trip gives the SQLite store's semantics (Dates become ISO
 * strings, undefined members vanish) and keeps the driver from touching the
 * caller's object.
 */
export function encodeDoc(collection: string, doc: Doc): Doc {
  const json = JSON.stringify(doc);
  const encoded = mapKeys(JSON.parse(json), escapeKey, needsEscape) as Doc;
  checkDocumentSize(collection, encoded, json.length);
  return encoded;
}

export function decodeDoc<T extends Doc>(doc: T): T {
  return mapKeys(doc, unescapeKey, (key) => key.startsWith(ESCAPE_MARK)) as T;
}
