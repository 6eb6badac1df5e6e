/** Shapes of unknown values, checked once here rather than by a copy in each module. */

/**
 * A JSON object as a parser makes it: not an array, not null, not a class
 * instance (a Date or Buffer is a value, not a document to walk).
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
