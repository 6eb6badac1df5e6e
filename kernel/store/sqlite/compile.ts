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
import { fieldSql, ftsTable, jsonPath, quoteIdent } from './columns.ts';

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
  /** `columns`: the paths with a generated column (columns.ts `generatedPaths`); other fields are read from `doc`. */
  constructor(private readonly collection: string, private readonly columns: ReadonlySet<string>) {}

  /**
   * `textAsFilter` writes the text condition so the planner cannot drive the
   * query from it: when matches are common, walking the sort index and
   * testing membership beats fetching and sorting every match.
   */
  where(where: Condition | null, options: { textAsFilter?: boolean } = {}): SqlFragment {
    const { text, rest } = splitText(where);
    const parts: SqlFragment[] = [];
    if (text) parts.push(this.text(text.query, options.textAsFilter === true));
    if (rest) parts.push(this.node(rest));
    if (parts.length === 0) return { sql: '1', params: [] };
    return { sql: parts.map((p) => p.sql).join(' AND '), params: parts.flatMap((p) => p.params) };
  }

  orderBy(sort: readonly SortKey[]): string {
    return sort.map((k) => `${fieldSql(this.columns, k.field.path)} ${k.direction === -1 ? 'DESC' : 'ASC'}`).join(', ');
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
      case 'empty':
        // json_array_length is 0 for a non-array and NULL for a missing path.
        return { sql: `coalesce(json_array_length(t.doc, '${jsonPath(c.field.path)}'), 0) = 0`, params: [] };
      default:
        return this.leaf(c.field, (v, raw) => this.predicate(c, v, raw));
    }
  }

  /** Applies a predicate to the field's column, or to any element of an array field. */
  private leaf(field: FieldDef, predicate: (value: string, raw: string) => SqlFragment): SqlFragment {
    // Numbers compare as doubles, as in MongoDB: SQLite would read a JSON
    // integer beyond 2^53 exactly and disagree. No number field is indexed.
    const read = (v: string): string => (field.type === 'number' ? `CAST(${v} AS REAL)` : v);
    const at = (v: string) => predicate(read(v), v);
    if (!field.array) return at(fieldSql(this.columns, field.path));
    if (field.arrayOfObjects) {
      const within = field.path.slice(field.arrayOfObjects.length + 1);
      const inner = at(`json_extract(e.value, '${jsonPath(within)}')`);
      return { sql: `EXISTS (SELECT 1 FROM json_each(t.doc, '${jsonPath(field.arrayOfObjects)}') AS e WHERE ${inner.sql})`, params: inner.params };
    }
    const inner = at('e.value');
    return { sql: `EXISTS (SELECT 1 FROM json_each(t.doc, '${jsonPath(field.path)}') AS e WHERE ${inner.sql})`, params: inner.params };
  }

  /**
   * `raw` is the stored value before any CAST, to test its type: MongoDB
   * compares only values of one type (BSON type bracketing), so a string
   * held where a number is declared never equals or exceeds a number, and a
   * number never sorts into a range of strings. `typeof` reads the column
   * only, so an index serves the comparison as before. JSON true/false are
   * integers here and cannot be told from 1/0 this way (docs/deployment.md).
   */
  /**
   * A condition on a scalar field that is not a number, compiled against
   * another column holding the same stored values (the value counters'
   * `bucket`), so both select by exactly the same rules.
   */
  scalarOn(c: Extract<Condition, { kind: 'compare' | 'in' | 'match' }>, column: string): SqlFragment {
    return this.predicate(c, column, column);
  }

  private predicate(c: Exclude<Condition, { kind: 'and' | 'or' | 'not' | 'text' | 'empty' }>, v: string, raw: string): SqlFragment {
    const numeric = `typeof(${raw}) IN ('integer', 'real')`;
    switch (c.kind) {
      case 'compare':
        if (typeof c.value === 'number') return { sql: `(${numeric} AND ${v} ${OPS[c.op]} ?)`, params: [c.value] };
        // Equal text is text already; a range needs the guard, since numbers sort before every string.
        if (typeof c.value === 'string' && c.op !== 'eq') return { sql: `(typeof(${raw}) = 'text' AND ${v} ${OPS[c.op]} ?)`, params: [c.value] };
        return { sql: `${v} ${OPS[c.op]} ?`, params: [param(c.value)] };
      case 'in': {
        const list = { sql: `${v} IN (${c.values.map(() => '?').join(', ')})`, params: c.values.map(param) };
        // A numeric list would take a string column value CAST to a number (`'a'` is 0).
        return c.values.length > 0 && c.values.every((x) => typeof x === 'number') ? { sql: `(${numeric} AND ${list.sql})`, params: list.params } : list;
      }
      case 'match':
        if (c.mode === 'prefix') {
          const upper = prefixUpperBound(c.text);
          // A range keeps the index usable; it is exact in binary (code-point) order.
          return upper === null
            ? { sql: `${v} >= ?`, params: [c.text] }
            : { sql: `(${v} >= ? AND ${v} < ?)`, params: [c.text, upper] };
        }
        // Suffix and substring compare UTF-8 bytes: SQLite's text functions stop
        // at a NUL, bytes do not, and UTF-8 makes a byte match a character match.
        if (c.mode === 'suffix') {
          if (c.text === '') return { sql: `typeof(${v}) = 'text'`, params: [] };
          return { sql: `(typeof(${v}) = 'text' AND substr(CAST(${v} AS BLOB), -length(CAST(? AS BLOB))) = CAST(? AS BLOB))`, params: [c.text, c.text] };
        }
        if (c.text === '') return { sql: `typeof(${v}) = 'text'`, params: [] };
        return { sql: `(typeof(${v}) = 'text' AND instr(CAST(${v} AS BLOB), CAST(? AS BLOB)) > 0)`, params: [c.text] };
    }
  }

  private text(q: TextQuery, asFilter: boolean): SqlFragment {
    const fts = quoteIdent(ftsTable(this.collection));
    return { sql: `${asFilter ? '+' : ''}t.seq IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`, params: [ftsQuery(q)] };
  }

  /** Counting a text search alone needs only the text index. */
  textOnlyCount(where: Condition | null): SqlFragment | null {
    const { text, rest } = splitText(where);
    if (!text || rest) return null;
    const fts = quoteIdent(ftsTable(this.collection));
    return { sql: `SELECT count(*) AS n FROM ${fts} WHERE ${fts} MATCH ?`, params: [ftsQuery(text.query)] };
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
