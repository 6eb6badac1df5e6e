/**
 * How a service declares the collections it keeps. Each service passes its
 * own list to the store it opens (the core its domain's, the gateway only its
 * audit), so a store builds exactly those and nothing else: a gateway's file
 * holds no core tables, and a collection nobody declared cannot be reached.
 * `GET /indexes/:collection/status` compares what exists against the list.
 */
import type { DocType } from '../search/fields.ts';
import type { IndexDescription } from './types.ts';

export interface CollectionSpec {
  readonly name: string;
  /** The search registry, for collections the search language reads. */
  readonly docType: DocType | null;
  readonly indexes: readonly IndexDescription[];
  /**
   * Readers keep copies of its documents while its change mark stays (the workflow lookup): the embedded store
   * then keeps the mark in the file, moved by every write from any connection or process (schema.ts). Unmarked
   * collections have no mark, and nothing read from them may be kept.
   */
  readonly changeMarked?: boolean;
}

type KeyPart = [path: string, direction: 1 | -1 | 'text'];

/** Index names follow the MongoDB convention (`field_1_other_-1`). */
export function index(parts: KeyPart[], unique = false): IndexDescription {
  const key: Record<string, 1 | -1 | 'text'> = {};
  for (const [path, dir] of parts) key[path] = dir;
  const name = parts.map(([path, dir]) => `${path}_${dir}`).join('_');
  return unique ? { name, key, unique } : { name, key };
}

/** The collection a search registry reads, with the indexes the registry declares. */
export function searchedCollection(docType: DocType): CollectionSpec {
  return { name: docType.collection, docType, indexes: docType.indexes };
}

/** A collection without a search registry. */
export function plainCollection(name: string, indexes: readonly IndexDescription[] = []): CollectionSpec {
  return { name, docType: null, indexes };
}

/**
 * The archiver's lease and unfinished batch, one document per archive group
 * (kernel/archive/lease.ts): declared by every service that archives.
 */
export const ARCHIVE_STATE = plainCollection('archive_state');

/** The declared collections, refused when one name is declared twice (two specs would fight over one table). */
export function checkedSpecs(specs: readonly CollectionSpec[]): readonly CollectionSpec[] {
  const names = new Set<string>();
  for (const spec of specs) {
    if (names.has(spec.name)) throw new Error(`collection ${spec.name} is declared twice`);
    names.add(spec.name);
  }
  return specs;
}

/**
 * True when a declared index of the registry's collection is `path` then
 * `_id`: a sort on it, `_id` breaking ties, walks the index in either
 * direction instead of sorting every match.
 */
export function sortIsIndexed(type: DocType, path: string): boolean {
  if (path === '_id') return true;
  return type.indexes.some((ix) => {
    const [first, second] = keyParts(ix);
    return first?.[0] === path && second?.[0] === '_id' && first[1] !== 'text' && first[1] === second[1];
  });
}

/** Key parts of an index, in order. */
export function keyParts(ix: IndexDescription): Array<[string, 1 | -1 | 'text']> {
  return Object.entries(ix.key);
}
