/**
 * A deep copy of a job document, or of any part of one. Jobs are JSON (read
 * from the store, or built from a workflow and a request body), and a walk
 * over plain objects and arrays copies one in a fifth of structuredClone's
 * time, which the engine paid on every change (BENCHMARKS.md, "Where a job's
 * time goes"). Anything else (a Date a caller put in) is left to
 * structuredClone, so the copy never shares or loses a value.
 */
import { setOwn } from '../../../kernel/index.ts';

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

/**
 * `{ ...base, ...fields }` for data: the same keys in the same order, each
 * an own property (a key `__proto__` stays data), made by a walk. On Node 20
 * an object made by a spread and then given a property of its own costs
 * about 2 µs, as V8 makes it a new hidden class each time, where this costs
 * 0.1 µs; a start made twenty-odd of them (BENCHMARKS.md, "The engine's main
 * thread outside the store").
 */
export function withFields<B extends object, F extends object>(base: B, fields: F): B & F {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(base)) setOwn(out, key, (base as Record<string, unknown>)[key]);
  for (const key of Object.keys(fields)) setOwn(out, key, (fields as Record<string, unknown>)[key]);
  return out as B & F;
}
