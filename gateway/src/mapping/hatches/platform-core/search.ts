/**
 * `pcSearch`: `POST /accounts/search`, `/groups/search` and `/roles/search`
 * as a GET of the list. The legacy body is read in the shape the legacy
 * workflow-engine searches used, `{options: {filter|query, sort, skip, limit,
 * fields}}` (the bare options too), with MongoDB's semantics (docs/gateway.md,
 * legacy searches); the generic list filters are taken as well. The new list
 * filters with one `equals`, one `contains` and one `startsWith`, so a
 * filter needing more is refused with what it asked. Answers `{results, total}`.
 *
 * with: {path, body}
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Hatch } from '../../run.ts';
import type { Obj } from './common.ts';
import { project, readLimit, readProjection, readSkip, readSort, singleSort } from '../../legacy-options.ts';
import { argsOf, listPages, text } from './common.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcSearch';
const PASSED = ['equals', 'equalsField', 'contains', 'containsField', 'startsWith', 'startsWithField', 'inactive'] as const;
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
  if (isPlainObject(value) && Object.hasOwn(value, '$regex')) return fromRegex(field, value['$regex'], value['$options']);
  if (isPlainObject(value) && Object.keys(value).length === 1 && scalar(value['$eq'])) return ['equals', String(value['$eq'])];
  throw new LegacyFailure(`The filter on ${field} cannot be expressed: only equality and literal text matches can`);
}

/** The list sorts on one field, then _id in the same direction; `order` went with a sort named as text. */
function sortOf(options: Obj, query: Record<string, string>): void {
  const keys = typeof options['sort'] === 'string' ? readSort({ [options['sort']]: options['order'] ?? 1 }) : readSort(options['sort']);
  const sort = singleSort(keys);
  if (sort) Object.assign(query, sort);
}

export const pcSearch: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const path = text(args, 'path', HATCH);
  const sent = isPlainObject(args['body']) ? args['body'] : {};
  const options: Obj = isPlainObject(sent['options']) ? sent['options'] : sent;
  const query: Record<string, string> = {};
  for (const key of PASSED) if (scalar(options[key])) query[key] = String(options[key]);
  sortOf(options, query);
  const projection = readProjection(options['fields']);
  const filter = options['filter'] ?? options['query'];
  if (filter !== undefined && !isPlainObject(filter)) throw new LegacyFailure('filter must be an object of field and value');
  for (const [field, value] of Object.entries(filter ?? {})) {
    const [op, operand] = condition(field, value);
    if (query[op] !== undefined) throw new LegacyFailure(`The filter cannot be expressed: the search takes one ${op} condition, and ${query[`${op}Field`]} and ${field} both need one`);
    query[op] = operand;
    query[`${op}Field`] = field;
  }
  // MongoDB's skip and limit: no limit (or 0) is every match, past the list's largest page too.
  const { results, total } = await listPages(api, path, query, readSkip(options['skip']), readLimit(options['limit']));
  return { status: 200, body: { results: results.map((r) => project(r, projection)), total } };
};

export const pcSearchHatch: HatchRecord = {
  name: 'pcSearch',
  family: 'platform-core',
  why: 'a MongoDB-style search body becomes the list filters (one equals, contains and startsWith), refused with its reason when it needs more',
  with: {
    type: 'object',
    required: ['path', 'body'],
    additionalProperties: false,
    properties: { path: { type: 'string', pattern: '^/' }, body: { type: 'object' } },
  },
  run: pcSearch,
};
