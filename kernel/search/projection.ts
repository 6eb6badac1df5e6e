/**
 * include / exclude projections. Applied to plain documents after they are
 * read, identically for both stores.
 */
import { isPlainObject, setOwn } from '../objects.ts';

export type Doc = Record<string, unknown>;

export type Projection =
  | { readonly kind: 'all'; readonly dropId: boolean }
  | { readonly kind: 'include'; readonly paths: readonly string[]; readonly dropId: boolean }
  | { readonly kind: 'exclude'; readonly paths: readonly string[] };

/** True when the projection keeps the value at `path` (or some of it). */
export function keeps(projection: Projection, path: string): boolean {
  switch (projection.kind) {
    case 'all':
      return !(projection.dropId && path === '_id');
    case 'include':
      if (path === '_id') return !projection.dropId;
      return projection.paths.some((p) => p === path || path.startsWith(`${p}.`) || p.startsWith(`${path}.`));
    case 'exclude':
      return !projection.paths.some((p) => p === path || path.startsWith(`${p}.`));
  }
}

export function applyProjection(doc: Doc, projection: Projection): Doc {
  switch (projection.kind) {
    case 'all': {
      if (!projection.dropId) return doc;
      const { _id: _dropped, ...rest } = doc;
      return rest;
    }
    case 'include': {
      const out: Doc = {};
      if (!projection.dropId && Object.hasOwn(doc, '_id')) out['_id'] = doc['_id'];
      for (const path of projection.paths) copyPath(doc, out, path.split('.'));
      return out;
    }
    case 'exclude': {
      const out = structuredClone(doc);
      for (const path of projection.paths) deletePath(out, path.split('.'));
      return out;
    }
  }
}

function copyPath(from: Doc, to: Doc, segments: string[]): void {
  const [head, ...rest] = segments;
  if (head === undefined || !Object.hasOwn(from, head)) return;
  const value = from[head];
  // Keys are defined and only own ones followed, so even a stored `__proto__` key stays data.
  if (rest.length === 0) {
    setOwn(to, head, value);
    return;
  }
  if (!isPlainObject(value)) return;
  const existing = Object.hasOwn(to, head) ? to[head] : undefined;
  const target: Doc = isPlainObject(existing) ? existing : {};
  setOwn(to, head, target);
  copyPath(value, target, rest);
}

function deletePath(doc: Doc, segments: string[]): void {
  const [head, ...rest] = segments;
  if (head === undefined || !Object.hasOwn(doc, head)) return;
  if (rest.length === 0) {
    delete doc[head];
    return;
  }
  const value = doc[head];
  if (isPlainObject(value)) deletePath(value, rest);
}
