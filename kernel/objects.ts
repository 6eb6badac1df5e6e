/** Shapes of unknown values, checked once here rather than by a copy in each module. */

/**
 * A JSON object as a parser makes it: not an array, not null, not a class
 * instance (a Date or Buffer is a value, not a document to walk). The
 * prototype objects themselves are never plain: a deep merge or copy that
 * followed an inherited `__proto__` would otherwise walk into
 * `Object.prototype` and write there for every object of the process.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value === Object.prototype) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Keys that lead to prototypes rather than to data: as path segments they
 * are refused (docs/security.md), as keys of data they stay own data.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isPrototypeKey(key: string): boolean {
  return PROTOTYPE_KEYS.has(key);
}

/** The first segment of a dotted path that leads to a prototype, or null. */
export function prototypeSegment(path: string): string | null {
  for (const segment of path.split('.')) if (PROTOTYPE_KEYS.has(segment)) return segment;
  return null;
}

/** An own property of an object, or undefined: inherited members (`toString`, `__proto__`) are never data. */
export function ownProperty(container: unknown, key: string): unknown {
  if (typeof container !== 'object' || container === null || !Object.hasOwn(container, key)) return undefined;
  return (container as Record<string, unknown>)[key];
}

/**
 * Sets a key of data as an own property. Plain assignment of `__proto__`
 * would replace the object's prototype instead of holding a value; defining
 * it keeps it data.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
