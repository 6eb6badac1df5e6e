/**
 * JSON values as RFC 7951 encodes YANG data, and the naming rules the
 * schema-less tree relies on: member names may carry a module prefix, and
 * list entries are told apart by key leaves guessed from the data.
 */
export type Json = string | number | boolean | null | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function prefixOf(name: string): string | null {
  const colon = name.indexOf(':');
  return colon > 0 ? name.slice(0, colon) : null;
}

export function localOf(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

export function qualified(module: string, local: string): string {
  return module === '' ? local : `${module}:${local}`;
}

/**
 * Whether two member names denote the same node. A prefix missing on either
 * side matches, because clients write `device` for `tailf-ncs:device` and
 * RFC 7951 itself leaves children of the parent's module unqualified.
 */
export function sameName(a: string, b: string): boolean {
  if (localOf(a) !== localOf(b)) return false;
  const pa = prefixOf(a);
  const pb = prefixOf(b);
  return pa === null || pb === null || pa === pb;
}

export function findMember(holder: JsonObject, name: string): string | undefined {
  if (Object.hasOwn(holder, name)) return name;
  return Object.keys(holder).find((key) => sameName(key, name));
}

/** The name a new member is stored under: unqualified inside its own module, as RFC 7951 writes it. */
export function storageKey(name: string, holderModule: string | null): string {
  const prefix = prefixOf(name);
  return prefix !== null && prefix === holderModule ? localOf(name) : name;
}

export function scalarText(value: Json | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * The key leaves of a list. With no schema they are guessed from an entry:
 * `name` (what NSO's own lists and most NED lists use), else the first
 * members. Entries are stored key-first so the guess stays stable.
 */
export function listKeyNames(list: readonly Json[], sample: JsonObject | undefined, count: number): string[] {
  const reference = list.find(isObject) ?? sample;
  if (reference === undefined) return count === 1 ? ['name'] : [];
  if (count === 1 && Object.hasOwn(reference, 'name')) return ['name'];
  return Object.keys(reference).slice(0, count);
}

export function findEntry(list: readonly Json[], names: readonly string[], keys: readonly string[]): number {
  if (names.length !== keys.length) return -1;
  return list.findIndex((entry) => isObject(entry) && names.every((name, i) => scalarText(entry[name]) === keys[i]));
}
