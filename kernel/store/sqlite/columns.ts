/**
 * How document paths map to SQLite columns. Every scalar field a collection
 * searches, sorts or indexes is a virtual generated column over the stored
 * JSON, so indexes can be declared on it and queries read it by name.
 */
import type { CollectionSpec } from '../collections.ts';
import { keyParts } from '../collections.ts';

/** `_id` is the real `id` column; everything else is `f_<path with . as __>`. */
export function columnName(path: string): string {
  return path === '_id' ? 'id' : `f_${path.replace(/\./g, '__')}`;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** JSON path with every key quoted, so `_id` or digits need no special care. */
export function jsonPath(path: string): string {
  return `$.${path.split('.').map((k) => `"${k}"`).join('.')}`;
}

/** Scalar paths that get a generated column: registry fields (not arrays) and index keys. */
export function generatedPaths(spec: CollectionSpec): string[] {
  const paths = new Set<string>();
  if (spec.docType) {
    for (const f of spec.docType.fields.values()) if (!f.array && f.path !== '_id') paths.add(f.path);
  }
  for (const ix of spec.indexes) {
    for (const [path, dir] of keyParts(ix)) if (path !== '_id' && dir !== 'text') paths.add(path);
  }
  return [...paths];
}

export function ftsTable(collection: string): string {
  return `${collection}__fts`;
}
