/**
 * Refuses keys that reach prototypes, and nesting deeper than the document
 * databases store, anywhere in a document. Iterative, so a hostile document
 * cannot exhaust the call stack.
 */
import type { ErrorDetail } from '../../../kernel/index.ts';

/**
 * Keys that can poison an object prototype when copied by careless code:
 * a workflow is configuration, not data, so it may not hold them at all
 * (docs/security.md). `prototype` alone reaches nothing on a plain object
 * and stays allowed, as saved workflows may use it as a name.
 */
const FORBIDDEN = new Set(['__proto__', 'constructor']);

/** MongoDB refuses documents nested deeper than 100 levels; refusing here gives a clear 400 instead. */
export const MAX_DEPTH = 100;

/** Every forbidden key, with its path; nesting beyond MAX_DEPTH is reported once, at the first place found. */
export function checkSafeKeys(doc: unknown, root: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: doc, path: root, depth: 0 }];
  let tooDeep = false;
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_DEPTH) {
      if (!tooDeep) details.push({ parameter: path, message: `is nested deeper than ${MAX_DEPTH} levels` });
      tooDeep = true;
      continue;
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 }));
      continue;
    }
    for (const key of Object.keys(value)) {
      const at = `${path}.${key}`;
      if (FORBIDDEN.has(key)) details.push({ parameter: at, message: `${key} is not allowed as a key` });
      else stack.push({ value: (value as Record<string, unknown>)[key], path: at, depth: depth + 1 });
    }
  }
  return details.sort((a, b) => a.parameter.localeCompare(b.parameter));
}
