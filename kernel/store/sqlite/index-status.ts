/**
 * Compares the indexes a collection table has with the declared ones:
 * missing, misnamed (same key, other name) and external (not declared).
 */
import type { Database } from 'better-sqlite3';
import type { CollectionSpec } from '../collections.ts';
import { keyParts } from '../collections.ts';
import type { IndexDescription, IndexStatus } from '../types.ts';
import { columnName, columnPaths } from './columns.ts';
import { hasTextIndex, listIndexes, physicalColumns, sqliteIndexName } from './schema.ts';

export interface IndexComparison {
  readonly status: IndexStatus;
  /** Declared indexes to create: the missing and the misnamed. */
  readonly toCreate: IndexDescription[];
  /** SQLite names of the misnamed indexes, dropped before recreating them. */
  readonly toDrop: string[];
}

type Signature = Array<[string, 1 | -1 | 'text']>;

function signature(cols: Signature, unique: boolean): string {
  return `${unique ? 'u' : ''}${JSON.stringify(cols)}`;
}

export function compareIndexes(db: Database, spec: CollectionSpec): IndexComparison {
  const pathOf = new Map<string, string>([['id', '_id'], ...columnPaths(spec).map((p) => [columnName(p), p] as [string, string])]);
  const existing = listIndexes(db, spec.name);
  const used = new Set<string>();
  const missing: IndexDescription[] = [];
  const misnamed: IndexDescription[] = [];
  const toDrop: string[] = [];
  for (const ix of spec.indexes) {
    const parts = keyParts(ix);
    if (parts.some(([, d]) => d === 'text')) {
      if (!hasTextIndex(db, spec.name)) missing.push(ix);
      continue;
    }
    // Built ascending by this version (schema.ts physicalColumns); a store made before has it as declared, which
    // serves the same searches and is kept as it is.
    const wanted = new Set([signature(physicalColumns(ix), ix.unique === true), signature(parts.map(([p, d]) => [columnName(p), d]), ix.unique === true)]);
    const match = existing.find((e) => !used.has(e.sqliteName) && wanted.has(signature(e.columns, e.unique)));
    if (!match) {
      missing.push(ix);
      continue;
    }
    used.add(match.sqliteName);
    if (match.sqliteName !== sqliteIndexName(spec.name, ix)) {
      misnamed.push(ix);
      toDrop.push(match.sqliteName);
    }
  }
  const external = existing
    .filter((e) => !used.has(e.sqliteName))
    .map((e): IndexDescription => {
      const key: Record<string, 1 | -1> = {};
      for (const [col, dir] of e.columns) key[pathOf.get(col) ?? col] = dir;
      const name = e.sqliteName.startsWith(`${spec.name}.`) ? e.sqliteName.slice(spec.name.length + 1) : e.sqliteName;
      return e.unique ? { name, key, unique: true } : { name, key };
    });
  return {
    status: { missing, misnamed, external, indexed: missing.length === 0 && misnamed.length === 0 },
    toCreate: [...missing, ...misnamed],
    toDrop,
  };
}
