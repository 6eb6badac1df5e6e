/**
 * Turns a legacy MongoDB-style job or task query into the new search's `q`
 * parameter, or refuses it, naming what cannot be expressed. Only operators
 * with an exact counterpart translate; `$where`, `$exists`, `$elemMatch` and
 * regular expressions other than a literal prefix, suffix or substring do not.
 */

export class UntranslatableQuery extends Error {}

type Q = Record<string, unknown>;

const COMPARE: Record<string, string> = { $eq: 'equals', $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte', $in: 'in', $nin: 'not-in' };
const META = /[\\^$.*+?()[\]{}|]/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function scalar(v: unknown, at: string): string | number | boolean {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (isObject(v) && typeof v['$date'] === 'string') return v['$date'];
  if (isObject(v) && typeof v['$oid'] === 'string') return v['$oid'];
  throw new UntranslatableQuery(`${at}: only strings, numbers, booleans and dates can be compared`);
}

/** A `$regex` that is really a literal prefix, suffix or substring. */
function regexLeaf(field: string, pattern: unknown, options: unknown, at: string): Q {
  if (typeof pattern !== 'string' || (options !== undefined && options !== '')) throw new UntranslatableQuery(`${at}: only case-sensitive literal regular expressions can be expressed`);
  const anchoredStart = pattern.startsWith('^');
  const anchoredEnd = pattern.endsWith('$') && !pattern.endsWith('\\$');
  const body = pattern.slice(anchoredStart ? 1 : 0, anchoredEnd ? -1 : undefined);
  const literal = body.replace(/\\(.)/g, '$1');
  if (META.test(body.replace(/\\./g, ''))) throw new UntranslatableQuery(`${at}: the regular expression ${JSON.stringify(pattern)} is not a literal text match`);
  if (anchoredStart && anchoredEnd) return { equals: { [field]: literal } };
  if (anchoredStart) return { 'starts-with': { [field]: literal } };
  if (anchoredEnd) return { 'ends-with': { [field]: literal } };
  return { contains: { [field]: literal } };
}

function fieldConditions(field: string, value: unknown, at: string): Q[] {
  if (field.startsWith('$')) throw new UntranslatableQuery(`${at}: ${field} cannot be expressed in the new search`);
  if (!isObject(value) || Object.keys(value).every((k) => !k.startsWith('$')) || '$date' in value || '$oid' in value) {
    return [{ equals: { [field]: scalar(value, at) } }];
  }
  const out: Q[] = [];
  for (const [op, arg] of Object.entries(value)) {
    const here = `${at}.${op}`;
    if (op === '$regex') out.push(regexLeaf(field, arg, value['$options'], here));
    else if (op === '$options') continue;
    else if (op === '$ne') out.push({ not: { equals: { [field]: scalar(arg, here) } } });
    else if (op === '$not' && isObject(arg)) out.push({ not: { and: fieldConditions(field, arg, here) } });
    else if (op === '$in' || op === '$nin') {
      if (!Array.isArray(arg) || arg.length === 0) throw new UntranslatableQuery(`${here}: needs a non-empty list`);
      out.push({ [COMPARE[op]!]: { [field]: arg.map((a, i) => scalar(a, `${here}[${i}]`)) } });
    } else if (COMPARE[op]) out.push({ [COMPARE[op]]: { [field]: scalar(arg, here) } });
    else throw new UntranslatableQuery(`${here}: the operator ${op} cannot be expressed in the new search`);
  }
  return out;
}

function translateNode(query: unknown, at: string): Q[] {
  if (!isObject(query)) throw new UntranslatableQuery(`${at}: a query must be an object`);
  const out: Q[] = [];
  for (const [key, value] of Object.entries(query)) {
    const here = `${at}.${key}`;
    if (key === '$and' || key === '$or' || key === '$nor') {
      if (!Array.isArray(value) || value.length === 0) throw new UntranslatableQuery(`${here}: needs a non-empty list`);
      const items = value.map((v, i) => ({ and: translateNode(v, `${here}[${i}]`) }));
      out.push(key === '$and' ? { and: items } : key === '$or' ? { or: items } : { not: { or: items } });
    } else out.push(...fieldConditions(key, value, here));
  }
  return out;
}

/** The `q` parameter for a legacy query; `{}` when the query selects everything. */
export function translateQuery(query: unknown): Record<string, string> {
  if (query === undefined || query === null) return {};
  const conditions = translateNode(query, 'query');
  return conditions.length === 0 ? {} : { q: JSON.stringify({ and: conditions }) };
}
