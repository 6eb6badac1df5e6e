/**
 * A deep copy of a job document, or of any part of one. Jobs are JSON (read
 * from the store, or built from a workflow and a request body), and a walk
 * over plain objects and arrays copies one in a fifth of structuredClone's
 * time, which the engine paid on every change (BENCHMARKS.md, "Where a job's
 * time goes"). Anything else (a Date a caller put in) is left to
 * structuredClone, so the copy never shares or loses a value.
 */
export function copyJson<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copy((value as Record<string, unknown>)[key]);
    // Defined, not assigned: a key `__proto__` in the data stays data (docs/security.md).
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}
