/**
 * The largest document either store keeps: MongoDB's limit of 16 MiB of
 * BSON. The embedded store could hold more, but a document it accepted and
 * MongoDB refused would make data unmovable between them and a job that
 * commits on one store stuck on the other (docs/deployment.md).
 */
import { createRequire } from 'node:module';
import type { BSON as BsonModule } from 'mongodb';
import { DocumentTooLargeError } from '../errors.ts';
import type { Doc } from './types.ts';

export const BSON_LIMIT = 16 * 1024 * 1024;

/** What one page of the code's own walks over a collection holds at most (SearchQuery.shorten). */
export const WALK_PAGE_BYTES = 64 * 1024 * 1024;

/**
 * BSON needs at most about 6 bytes per byte of JSON (an array of one-digit
 * integers: `1,` against a type byte, an index key and an int32), so a
 * document whose JSON is shorter than this cannot reach the limit and is not
 * measured; writes of ordinary documents cost nothing more.
 */
export const MEASURE_ABOVE_JSON_CHARS = Math.floor(BSON_LIMIT / 8);

const load = createRequire(import.meta.url);
let bson: typeof BsonModule | null = null;

/** BSON size of a plain JSON document, as the MongoDB driver computes it. */
export function bsonSize(doc: Doc): number {
  // Loaded on first use: the embedded store rarely needs it and the driver takes ~90 ms to load.
  bson ??= (load('mongodb') as { BSON: typeof BsonModule }).BSON;
  return bson.calculateObjectSize(doc);
}

/** Throws DOCUMENT_TOO_LARGE for a document over the limit; `jsonChars` is its JSON length when known. */
export function checkDocumentSize(collection: string, doc: Doc, jsonChars?: number): void {
  if (jsonChars !== undefined && jsonChars < MEASURE_ABOVE_JSON_CHARS) return;
  const bytes = bsonSize(doc);
  if (bytes > BSON_LIMIT) throw new DocumentTooLargeError(collection, bytes, BSON_LIMIT);
}
