/**
 * Compares what `listIndexes()` reports with the declared indexes of a
 * collection. Kept free of the driver so the rules can be tested without a
 * server: the same answers as the SQLite store for the same situation.
 */
import type { Document } from 'mongodb';
import { keyParts } from '../collections.ts';
import type { IndexDescription, IndexStatus } from '../types.ts';

/** An index as the server lists it, reduced to what the comparison needs. */
export interface ListedIndex {
  readonly name: string;
  /** Key parts in order; a text index's `_fts`/`_ftsx` are replaced by its fields as `text`. */
  readonly parts: ReadonlyArray<[string, number | string]>;
  readonly unique: boolean;
  readonly textFields: ReadonlySet<string>;
}

export interface IndexPlan {
  readonly status: IndexStatus;
  /** Existing indexes to drop first: misnamed ones, and ones holding a declared name with another definition. */
  readonly drop: string[];
  readonly create: IndexDescription[];
}

/** The implicit primary index; never missing, never external. */
export const ID_INDEX = '_id_';

export function readListedIndex(info: Document): ListedIndex {
  const key = (info['key'] ?? {}) as Record<string, unknown>;
  const weights = (info['weights'] ?? {}) as Record<string, unknown>;
  const isText = key['_fts'] === 'text';
  const parts: Array<[string, number | string]> = [];
  for (const [path, dir] of Object.entries(key)) {
    if (path === '_ftsx') continue;
    if (path === '_fts') {
      for (const field of Object.keys(weights)) parts.push([field, 'text']);
      continue;
    }
    parts.push([path, typeof dir === 'number' || typeof dir === 'string' ? dir : String(dir)]);
  }
  return {
    name: String(info['name']),
    parts,
    unique: info['unique'] === true,
    textFields: new Set(isText ? Object.keys(weights) : []),
  };
}

/** Any positive number is ascending and any negative one descending, as on the server. */
function direction(dir: number | string): 1 | -1 | 'text' | string {
  if (typeof dir === 'number') return dir < 0 ? -1 : 1;
  return dir;
}

function matches(declared: IndexDescription, listed: ListedIndex): boolean {
  if ((declared.unique === true) !== listed.unique) return false;
  const parts = keyParts(declared);
  const text = parts.filter(([, d]) => d === 'text');
  if (text.length > 0) return text.every(([path]) => listed.textFields.has(path));
  if (listed.textFields.size > 0 || parts.length !== listed.parts.length) return false;
  return parts.every(([path, dir], i) => listed.parts[i]![0] === path && direction(listed.parts[i]![1]) === dir);
}

/**
 * An external index as the status shape can hold it. Special key types
 * (hashed, 2dsphere, ...) have no place in that shape and show as ascending.
 */
function describe(listed: ListedIndex): IndexDescription {
  const key: Record<string, 1 | -1 | 'text'> = {};
  for (const [path, dir] of listed.parts) {
    const d = direction(dir);
    key[path] = d === -1 || d === 'text' ? d : 1;
  }
  return listed.unique ? { name: listed.name, key, unique: true } : { name: listed.name, key };
}

export function planIndexes(declared: readonly IndexDescription[], existing: readonly ListedIndex[]): IndexPlan {
  const candidates = existing.filter((e) => e.name !== ID_INDEX);
  const used = new Set<string>();
  const missing: IndexDescription[] = [];
  const misnamed: IndexDescription[] = [];
  const drop: string[] = [];
  for (const ix of declared) {
    const free = candidates.filter((e) => !used.has(e.name) && matches(ix, e));
    // Prefer the index that already has the declared name when several fit.
    const match = free.find((e) => e.name === ix.name) ?? free[0];
    if (!match) {
      missing.push(ix);
      continue;
    }
    used.add(match.name);
    if (match.name !== ix.name) {
      misnamed.push(ix);
      drop.push(match.name);
    }
  }
  const external = candidates.filter((e) => !used.has(e.name));
  // The server refuses a second index with the same name, so one that holds a
  // declared name but not its definition is outdated and goes too.
  for (const ix of [...missing, ...misnamed]) {
    const squatter = external.find((e) => e.name === ix.name);
    if (squatter && !drop.includes(squatter.name)) drop.push(squatter.name);
  }
  return {
    status: { missing, misnamed, external: external.map(describe), indexed: missing.length === 0 && misnamed.length === 0 },
    drop,
    create: [...missing, ...misnamed],
  };
}
