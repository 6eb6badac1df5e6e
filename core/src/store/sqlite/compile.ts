/**
 * Compiles a condition tree into a SQL WHERE clause over one collection table
 * (aliased `t`). Semantics match the MongoDB filter built by to-mongo.ts:
 * conditions on arrays match when any element does, a missing field matches
 * no positive condition, and `not` selects exactly the complement (so NULLs
 * are folded to false before negating).
 */
import type { Condition, SortKey, TextQuery } from '../../search/conditions.ts';
import { splitText } from '../../search/conditions.ts';
import type { FieldDef } from '../../search/fields.ts';
import type { Scalar } from '../../search/values.ts';
import { columnName, ftsTable, jsonPath, quoteIdent } from './columns.ts';

export type SqlParam = string | number;

export interface SqlFragment {
  readonly sql: string;
  readonly params: SqlParam[];
}

const OPS = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function param(value: Scalar): SqlParam {
  // SQLite stores JSON true/false as 1/0 and cannot bind booleans.
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/** Smallest string greater than every string that starts with `prefix` (code-point order). */
export function prefixUpperBound(prefix: string): string | null {
  const points = [...prefix].map((ch) => ch.codePointAt(0)!);
  while (points.length > 0) {
    let last = points.pop()!;
    if (last < 0x10ffff) {
      last += 1;
      if (last >= 0xd800 && last <= 0xdfff) last = 0xe000;
      points.push(last);
      return String.fromCodePoint(...points);
    }
  }
  return null;
}

export class SqlCompiler {
  constructor(private readonly collection: string) {}

  where(where: Condition | null): SqlFragment {
    const { text, rest } = splitText(where);
    const parts: SqlFragment[] = [];
    if (text) parts.push(this.text(text.query));
    if (rest) parts.push(this.node(rest));
    if (parts.length === 0) return { sql: '1', params: [] };
    return { sql: parts.map((p) => p.sql).join(' AND '), params: parts.flatMap((p) => p.params) };
  }

  orderBy(sort: readonly SortKey[]): string {
    return sort.map((k) => `t.${quoteIdent(columnName(k.field.path))} ${k.direction === -1 ? 'DESC' : 'ASC'}`).join(', ');
  }

  private node(c: Condition): SqlFragment {
    switch (c.kind) {
      case 'and':
      case 'or': {
        const parts = c.items.map((i) => this.node(i));
        return { sql: `(${parts.map((p) => p.sql).join(c.kind === 'and' ? ' AND ' : ' OR ')})`, params: parts.flatMap((p) => p.params) };
      }
      case 'not': {
        const inner = this.node(c.item);
        return { sql: `(NOT coalesce(${inner.sql}, 0))`, params: inner.params };
      }
      case 'text':
        throw new Error('text search is only allowed under AND; the parser guarantees it');
      default:
        return this.leaf(c.field, (v) => this.predicate(c, v));
    }
  }

  /** Applies a predicate to the field's column, or to any element of an array field. */
  private leaf(field: FieldDef, predicate: (value: string) => SqlFragment): SqlFragment {
    if (!field.array) return predicate(`t.${quoteIdent(columnName(field.path))}`);
    const inner = predicate('e.value');
    return { sql: `EXISTS (SELECT 1 FROM json_each(t.doc, '${jsonPath(field.path)}') AS e WHERE ${inner.sql})`, params: inner.params };
  }

  private predicate(c: Exclude<Condition, { kind: 'and' | 'or' | 'not' | 'text' }>, v: string): SqlFragment {
    switch (c.kind) {
      case 'compare':
        return { sql: `${v} ${OPS[c.op]} ?`, params: [param(c.value)] };
      case 'in':
        return { sql: `${v} IN (${c.values.map(() => '?').join(', ')})`, params: c.values.map(param) };
      case 'match':
        if (c.mode === 'prefix') {
          const upper = prefixUpperBound(c.text);
          // A range keeps the index usable; it is exact in binary (code-point) order.
          return upper === null
            ? { sql: `${v} >= ?`, params: [c.text] }
            : { sql: `(${v} >= ? AND ${v} < ?)`, params: [c.text, upper] };
        }
        if (c.mode === 'suffix') {
          return {
            sql: `(typeof(${v}) = 'text' AND length(${v}) >= length(?) AND substr(${v}, length(${v}) - length(?) + 1) = ?)`,
            params: [c.text, c.text, c.text],
          };
        }
        return { sql: `(typeof(${v}) = 'text' AND instr(${v}, ?) > 0)`, params: [c.text] };
    }
  }

  private text(q: TextQuery): SqlFragment {
    const fts = quoteIdent(ftsTable(this.collection));
    return { sql: `t.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`, params: [ftsQuery(q)] };
  }
}

function quoteWord(word: string): string {
  return `"${word.replace(/"/g, '""')}"`;
}

/**
 * FTS5 query with the document-database meaning: with phrases, every phrase
 * must appear; without, any term may; excluded words remove a document.
 */
export function ftsQuery(q: TextQuery): string {
  const positive = q.phrases.length > 0 ? q.phrases.map(quoteWord).join(' AND ') : q.terms.map(quoteWord).join(' OR ');
  return [`(${positive})`, ...q.excluded.map((w) => `NOT ${quoteWord(w)}`)].join(' ');
}
