/**
 * Turns a legacy MongoDB-style job or task query into the new search's `q`
 * parameter, or refuses it, naming what cannot be expressed. Only what has an
 * exact counterpart translates: a translated query selects the documents
 * MongoDB would have selected, or the legacy caller gets an error
 * (docs/gateway.md, "Legacy searches").
 *
 * The new search reads a value by its field's type, while MongoDB compares
 * BSON types: the number 5 never equals the text "5". So a value is checked
 * against the type of the field it is compared with (the core's field
 * registry), and a comparison MongoDB would answer by type alone is refused.
 */
import { isObjectId, isPlainObject, jobs, prototypeSegment, tasks } from '../../../kernel/index.ts';
import type { DocType, FieldDef } from '../../../kernel/index.ts';

export class UntranslatableQuery extends Error {}

type Q = Record<string, unknown>;
type Scalar = string | number | boolean;

const COMPARE: Record<string, string> = { $eq: 'equals', $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte', $in: 'in', $nin: 'not-in' };
/** Regular-expression syntax; an escaped punctuation character is a literal, an escaped letter or digit (`\d`) is not. */
const META = /[\\^$.*+?()[\]{}|]/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const TYPES: Readonly<Record<string, DocType>> = { jobs, tasks };

/** What the new search would read differently from MongoDB for a value of this field, or null when they agree. */
function typeMismatch(def: FieldDef, v: Scalar): string | null {
  switch (def.type) {
    case 'string':
      return typeof v === 'string' ? null : 'holds text';
    case 'number':
      return typeof v === 'number' ? null : 'holds numbers';
    case 'boolean':
      return typeof v === 'boolean' ? null : 'holds true or false';
    case 'date':
      if (def.dateEncoding === 'epochMs') return typeof v === 'number' ? null : 'holds epoch milliseconds (a number)';
      return typeof v === 'string' && ISO.test(v) ? null : 'holds ISO-8601 text such as 2024-06-01T00:00:00.000Z, compared as text';
    case 'objectId':
      // Lower case only: MongoDB matched the stored lower-case text exactly, where the new search lower-cases what it is given.
      return isObjectId(v) && v === v.toLowerCase() ? null : 'holds ids of 24 lowercase hexadecimal characters';
    case 'uuid':
      return typeof v === 'string' && UUID.test(v) ? null : 'holds lowercase UUIDs';
  }
}

/** Conditions ANDed, without a level of nesting for one alone: the search limits how deep `q` nests. */
function all(conditions: Q[]): Q {
  const flat = conditions.flatMap((c) => (Object.keys(c).length === 1 && Array.isArray(c['and']) ? (c['and'] as Q[]) : [c]));
  return flat.length === 1 ? flat[0]! : { and: flat };
}

class Translator {
  constructor(private readonly type: DocType | null) {}

  private field(name: string): FieldDef | undefined {
    return this.type?.fields.get(name);
  }

  private scalar(field: string, v: unknown, at: string): Scalar {
    let value: Scalar;
    // Extended JSON stays accepted as it was: legacy clients sent dates and ids that way.
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') value = v;
    else if (isPlainObject(v) && typeof v['$date'] === 'string') return v['$date'];
    else if (isPlainObject(v) && typeof v['$oid'] === 'string') return v['$oid'];
    else throw new UntranslatableQuery(`${at}: only strings, numbers, booleans and dates can be compared`);
    const def = this.field(field);
    const mismatch = def ? typeMismatch(def, value) : null;
    if (mismatch) throw new UntranslatableQuery(`${at}: ${field} ${mismatch}; MongoDB compares ${JSON.stringify(value)} by its type, which the new search cannot express`);
    return value;
  }

  /** A `$regex` that is really a literal prefix, suffix, substring or whole value. */
  private regexLeaf(field: string, pattern: unknown, options: unknown, at: string): Q {
    if (typeof pattern !== 'string' || (options !== undefined && options !== '')) throw new UntranslatableQuery(`${at}: only case-sensitive literal regular expressions can be expressed`);
    const def = this.field(field);
    if (def && def.type !== 'string') throw new UntranslatableQuery(`${at}: ${field} does not hold text, so a regular expression on it cannot be expressed`);
    const anchoredStart = pattern.startsWith('^');
    const anchoredEnd = /(^|[^\\])(\\\\)*\$$/.test(pattern);
    const body = pattern.slice(anchoredStart ? 1 : 0, anchoredEnd ? -1 : undefined);
    if (META.test(body.replace(/\\[^A-Za-z0-9]/g, ''))) throw new UntranslatableQuery(`${at}: the regular expression ${JSON.stringify(pattern)} is not a literal text match`);
    const literal = body.replace(/\\(.)/g, '$1');
    // jobs' contains[description] is a word search, not a substring match.
    if (def?.textSearch && !anchoredStart && !anchoredEnd) throw new UntranslatableQuery(`${at}: ${field} is searched by words in the new search, so a substring regular expression on it cannot be expressed`);
    // `$` also matches before a final newline, as in every Perl-style engine.
    const ends = (op: string): Q => ({ or: [{ [op]: { [field]: literal } }, { [op]: { [field]: `${literal}\n` } }] });
    if (anchoredStart && anchoredEnd) return { in: { [field]: [literal, `${literal}\n`] } };
    if (anchoredStart) return { 'starts-with': { [field]: literal } };
    if (anchoredEnd) return ends('ends-with');
    return { contains: { [field]: literal } };
  }

  private fieldConditions(field: string, value: unknown, at: string): Q[] {
    if (field.startsWith('$')) throw new UntranslatableQuery(`${at}: ${field} cannot be expressed in the new search`);
    const proto = prototypeSegment(field);
    if (proto !== null) throw new UntranslatableQuery(`${at}: ${field} goes through ${proto}, which names a prototype, not a field`);
    if (!isPlainObject(value) || Object.keys(value).every((k) => !k.startsWith('$')) || Object.hasOwn(value, '$date') || Object.hasOwn(value, '$oid')) {
      return [{ equals: { [field]: this.scalar(field, value, at) } }];
    }
    const out: Q[] = [];
    for (const [op, arg] of Object.entries(value)) {
      const here = `${at}.${op}`;
      if (op === '$regex') out.push(this.regexLeaf(field, arg, value['$options'], here));
      else if (op === '$options') {
        if (!Object.hasOwn(value, '$regex')) throw new UntranslatableQuery(`${here}: $options needs $regex`);
      } else if (op === '$ne') out.push({ not: { equals: { [field]: this.scalar(field, arg, here) } } });
      else if (op === '$not' && isPlainObject(arg)) out.push({ not: all(this.fieldConditions(field, arg, here)) });
      else if (op === '$in' || op === '$nin') {
        if (!Array.isArray(arg) || arg.length === 0) throw new UntranslatableQuery(`${here}: needs a non-empty list`);
        out.push({ [COMPARE[op]!]: { [field]: arg.map((a, i) => this.scalar(field, a, `${here}[${i}]`)) } });
      } else if (COMPARE[op]) out.push({ [COMPARE[op]]: { [field]: this.scalar(field, arg, here) } });
      else throw new UntranslatableQuery(`${here}: the operator ${op} cannot be expressed in the new search`);
    }
    return out;
  }

  node(query: unknown, at: string): Q[] {
    if (!isPlainObject(query)) throw new UntranslatableQuery(`${at}: a query must be an object`);
    const out: Q[] = [];
    for (const [key, value] of Object.entries(query)) {
      const here = `${at}.${key}`;
      if (key === '$and' || key === '$or' || key === '$nor') {
        if (!Array.isArray(value) || value.length === 0) throw new UntranslatableQuery(`${here}: needs a non-empty list`);
        const branches = value.map((v, i) => this.node(v, `${here}[${i}]`));
        // An empty branch (`{}`) selects everything, and the search takes no empty `and`.
        if (branches.some((b) => b.length === 0)) {
          if (key === '$nor') throw new UntranslatableQuery(`${here}: an empty condition in $nor selects nothing, which the new search cannot express`);
          if (key === '$or') continue;
        }
        const kept = branches.filter((b) => b.length > 0);
        if (kept.length === 0) continue;
        if (key === '$and') {
          out.push(...kept.flat());
          continue;
        }
        const either = kept.length === 1 ? all(kept[0]!) : { or: kept.map(all) };
        out.push(key === '$or' ? either : { not: either });
      } else out.push(...this.fieldConditions(key, value, here));
    }
    return out;
  }
}

/**
 * The `q` parameter for a legacy query; `{}` when the query selects
 * everything. With `type`, values are checked against its fields' types.
 */
export function translateQuery(query: unknown, type?: 'jobs' | 'tasks'): Record<string, string> {
  if (query === undefined || query === null) return {};
  const conditions = new Translator(type ? TYPES[type]! : null).node(query, 'query');
  return conditions.length === 0 ? {} : { q: JSON.stringify(all(conditions)) };
}
