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
  /** The key and options as listed, to build the index again as it was. */
  readonly key: Readonly<Record<string, unknown>>;
  readonly raw: Document;
}

/** A declared index to build in place of existing ones, which must go first (same name, or same key). */
export interface Replacement {
  readonly index: IndexDescription;
  readonly drop: readonly ListedIndex[];
}

export interface IndexPlan {
  readonly status: IndexStatus;
  /** Existing indexes to drop first: misnamed ones, and ones holding a declared name with another definition. */
  readonly drop: string[];
  /** Declared indexes to build, blocked ones left out. */
  readonly create: IndexDescription[];
  /** The part of `create` that replaces existing indexes, with what each must drop first. */
  readonly replace: Replacement[];
  /** Declared text indexes a foreign text index keeps from being built: the server allows one per collection. */
  readonly blocked: ReadonlyArray<{ readonly index: IndexDescription; readonly by: string }>;
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
    key,
    raw: info,
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
  const misnamedFrom = new Map<string, ListedIndex>();
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
      misnamedFrom.set(ix.name, match);
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
  const byName = new Map(candidates.map((e) => [e.name, e]));
  const replace: Replacement[] = [];
  const blocked: Array<{ index: IndexDescription; by: string }> = [];
  const create: IndexDescription[] = [];
  for (const ix of [...missing, ...misnamed]) {
    const goes = [misnamedFrom.get(ix.name), external.find((e) => e.name === ix.name)].filter((e): e is ListedIndex => e !== undefined);
    const isText = keyParts(ix).some(([, d]) => d === 'text');
    const foreignText = isText ? external.find((e) => e.textFields.size > 0 && !goes.includes(e)) : undefined;
    if (foreignText) {
      blocked.push({ index: ix, by: foreignText.name });
      continue;
    }
    create.push(ix);
    if (goes.length > 0) replace.push({ index: ix, drop: goes.map((e) => byName.get(e.name)!) });
  }
  return {
    status: { missing, misnamed, external: external.map(describe), indexed: missing.length === 0 && misnamed.length === 0 },
    drop,
    create,
    replace,
    blocked,
  };
}
