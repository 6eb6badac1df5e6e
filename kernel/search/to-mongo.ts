/**
 * Compiles a condition tree into a MongoDB filter document. Every leaf is its
 * own clause (never merged with a sibling on the same field), so conditions on
 * array fields keep "any element" semantics per condition, as in SQL.
 */
import type { Condition, SortKey, TextQuery } from './conditions.ts';
import { splitText } from './conditions.ts';

export type MongoFilter = Record<string, unknown>;

/** Escapes every character with a meaning in a regular expression. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/**
 * The literal match as a pattern. `(?![\s\S])` anchors at the true end: in
 * PCRE (the server) `$` also matches before a final newline, in JavaScript it
 * does not; the lookahead means the same in both.
 */
export function matchPattern(mode: 'prefix' | 'suffix' | 'substring', text: string): string {
  const body = escapeRegex(text);
  if (mode === 'prefix') return `^${body}`;
  if (mode === 'suffix') return `${body}(?![\\s\\S])`;
  return body;
}

export function textSearchString(q: TextQuery): string {
  const parts = [...q.phrases.map((p) => `"${p}"`), ...q.terms, ...q.excluded.map((w) => `-${w}`)];
  return parts.join(' ');
}

export function toMongoFilter(where: Condition | null): MongoFilter {
  const { text, rest } = splitText(where);
  const filter: MongoFilter = rest ? clause(rest) : {};
  // $text must sit at the top level of the filter.
  if (text) return rest ? { $and: [filter], $text: { $search: textSearchString(text.query) } } : { $text: { $search: textSearchString(text.query) } };
  return filter;
}

function clause(c: Condition): MongoFilter {
  switch (c.kind) {
    case 'and':
      return { $and: c.items.map(clause) };
    case 'or':
      return { $or: c.items.map(clause) };
    case 'not':
      return negate(c.item);
    case 'compare':
      return { [c.field.path]: { [`$${c.op}`]: c.value } };
    case 'in':
      return { [c.field.path]: { $in: [...c.values] } };
    case 'match':
      return { [c.field.path]: { $regex: matchPattern(c.mode, c.text) } };
    case 'text':
      throw new Error('text search is hoisted to the top level before compiling');
    case 'empty':
      // No first element: missing, null, an empty array (or a lone scalar, which our data never holds).
      return { [`${c.field.path}.0`]: { $exists: false } };
  }
}

/** Field-level negation where MongoDB has it; `$nor` otherwise (there is no top-level `$not`). */
function negate(c: Condition): MongoFilter {
  switch (c.kind) {
    case 'compare':
      return c.op === 'eq' ? { [c.field.path]: { $ne: c.value } } : { [c.field.path]: { $not: { [`$${c.op}`]: c.value } } };
    case 'in':
      return { [c.field.path]: { $nin: [...c.values] } };
    case 'match':
      return { [c.field.path]: { $not: { $regex: matchPattern(c.mode, c.text) } } };
    default:
      return { $nor: [clause(c)] };
  }
}

export function toMongoSort(sort: readonly SortKey[]): Record<string, 1 | -1> {
  const out: Record<string, 1 | -1> = {};
  for (const key of sort) out[key.field.path] = key.direction;
  return out;
}
