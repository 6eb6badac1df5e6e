/**
 * How document paths map to SQLite columns. Every scalar field a collection
 * searches, sorts or indexes is a virtual generated column over the stored
 * JSON, so indexes can be declared on it and queries read it by name.
 */
import type { Database } from 'better-sqlite3';
import type { CollectionSpec } from '../collections.ts';
import { keyParts } from '../collections.ts';

/** `_id` is the real `id` column; everything else is `f_<path with . as __>`. */
export function columnName(path: string): string {
  return path === '_id' ? 'id' : `f_${path.replace(/\./g, '__')}`;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A string as an SQL literal, for DDL that cannot take parameters (triggers). */
export function quoteText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** JSON path with every key quoted, so `_id` or digits need no special care. */
export function jsonPath(path: string): string {
  return `$.${path.split('.').map((k) => `"${k}"`).join('.')}`;
}

/**
 * Paths that get a generated column: the keys of the declared indexes (the
 * text index reads its field's column too). SQLite computes every generated
 * column of a row at each insert, indexed or not, so a column nothing indexes
 * cost a task row about 4 µs for nothing (14 of its 22); every other field is
 * read by `fieldSql` with the same expression, which selects exactly the same.
 */
export function generatedPaths(spec: CollectionSpec): string[] {
  const paths = new Set<string>();
  for (const ix of spec.indexes) {
    for (const [path] of keyParts(ix)) if (path !== '_id') paths.add(path);
  }
  return [...paths];
}

/** Every scalar path a column of this collection may be named after, including a table made before `generatedPaths` narrowed. */
export function columnPaths(spec: CollectionSpec): string[] {
  const paths = new Set<string>(generatedPaths(spec));
  if (spec.docType) {
    for (const f of spec.docType.fields.values()) if (!f.array && f.path !== '_id') paths.add(f.path);
  }
  return [...paths];
}

/** A scalar field of row `t` in SQL: its column where it has one, else the column's own expression. */
export function fieldSql(columns: ReadonlySet<string>, path: string): string {
  if (path === '_id' || columns.has(path)) return `t.${quoteIdent(columnName(path))}`;
  return `json_extract(t.doc, '${jsonPath(path)}')`;
}

export function ftsTable(collection: string): string {
  return `${collection}__fts`;
}

/**
 * The trigger `name` as `sql` creates it: created when missing, replaced when it was created from other text (an
 * earlier version's), left alone when it is the same. For triggers whose versions keep the same state, so that a
 * store made before is upgraded at open without rebuilding what they keep.
 */
export function ensureTrigger(db: Database, name: string, sql: string): void {
  const present = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`).get(name) as { sql: string } | undefined;
  if (present?.sql === sql) return;
  db.exec(`DROP TRIGGER IF EXISTS ${quoteIdent(name)}`);
  db.exec(sql);
}
