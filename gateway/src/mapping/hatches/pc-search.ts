/**
 * `pcSearch`: `POST /accounts/search`, `/groups/search` and `/roles/search`
 * as a GET of the list. The legacy body is read in the shape the legacy
 * workflow-engine searches used, `{options: {filter|query, sort, skip, limit}}`
 * (the bare options too), and the generic list parameters are taken as well.
 * The new list filters with one `equals`, one `contains` and one
 * `startsWith`, so a filter needing more is refused with what it asked.
 * Answers the list's `{results, total}`.
 *
 * with: {path, body}
 */
import { LegacyFailure } from '../run.ts';
import type { Hatch } from '../run.ts';
import type { Obj } from './pc-common.ts';
import { argsOf, isObject, send, text } from './pc-common.ts';

const HATCH = 'pcSearch';
const PASSED = ['limit', 'skip', 'order', 'equals', 'equalsField', 'contains', 'containsField', 'startsWith', 'startsWithField', 'inactive'] as const;
const REGEX_META = /[\\^$.*+?()[\]{}|]/;

type Filter = 'equals' | 'contains' | 'startsWith';

function scalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** `{$regex: "^abc"}` and the like, when they are a literal prefix or substring. */
function fromRegex(field: string, pattern: unknown, options: unknown): [Filter, string] {
  if (typeof pattern !== 'string' || (options !== undefined && options !== '')) throw new LegacyFailure(`The filter on ${field} is not a case-sensitive literal match`);
  const anchored = pattern.startsWith('^');
  const body = anchored ? pattern.slice(1) : pattern;
  if (REGEX_META.test(body.replace(/\\./g, ''))) throw new LegacyFailure(`The filter on ${field} (${JSON.stringify(pattern)}) is not a literal text match`);
  return [anchored ? 'startsWith' : 'contains', body.replace(/\\(.)/g, '$1')];
}

function condition(field: string, value: unknown): [Filter, string] {
  if (scalar(value)) return ['equals', String(value)];
  if (isObject(value) && '$regex' in value) return fromRegex(field, value['$regex'], value['$options']);
  if (isObject(value) && Object.keys(value).length === 1 && scalar(value['$eq'])) return ['equals', String(value['$eq'])];
  throw new LegacyFailure(`The filter on ${field} cannot be expressed: only equality and literal text matches can`);
}

function sortOf(sort: unknown, query: Record<string, string>): void {
  if (sort === undefined) return;
  if (typeof sort === 'string') {
    query['sort'] = sort;
    return;
  }
  const keys = isObject(sort) ? Object.keys(sort) : [];
  if (!isObject(sort) || keys.length !== 1) throw new LegacyFailure('sort must name one field');
  const direction = sort[keys[0]!];
  query['sort'] = keys[0]!;
  query['order'] = direction === -1 || direction === 'desc' || direction === 'descending' ? '-1' : '1';
}

export const pcSearch: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const path = text(args, 'path', HATCH);
  const sent = isObject(args['body']) ? args['body'] : {};
  const options: Obj = isObject(sent['options']) ? sent['options'] : sent;
  const query: Record<string, string> = {};
  for (const key of PASSED) if (scalar(options[key])) query[key] = String(options[key]);
  sortOf(options['sort'], query);
  const filter = options['filter'] ?? options['query'];
  if (filter !== undefined && !isObject(filter)) throw new LegacyFailure('filter must be an object of field and value');
  for (const [field, value] of Object.entries(filter ?? {})) {
    const [op, operand] = condition(field, value);
    if (query[op] !== undefined) throw new LegacyFailure(`The filter cannot be expressed: the search takes one ${op} condition, and ${query[`${op}Field`]} and ${field} both need one`);
    query[op] = operand;
    query[`${op}Field`] = field;
  }
  const { body } = await send(api.call, { method: 'GET', path, query });
  return { status: 200, body };
};
