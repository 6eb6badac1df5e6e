/**
 * `pcSearch`: `POST /accounts/search`, `/groups/search` and `/roles/search`
 * as a GET of the list. The legacy body is read in the shape the legacy
 * workflow-engine searches used, `{options: {filter|query, sort, skip, limit,
 * fields}}` (the bare options too), with MongoDB's semantics (docs/gateway.md,
 * legacy searches); the generic list filters are taken as well. Each
 * condition becomes the platform's `multiEquals[f]`, `multiContains[f]` or
 * `multiStartsWith[f]`, on the fields the platform's list filters on; any
 * other filter is refused with what it asked, since the platform would
 * ignore it and answer everything. Answers `{results, total}`.
 *
 * with: {path, body}
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Hatch } from '../../run.ts';
import type { Filter, Kind, Obj } from './common.ts';
import { project, readLimit, readProjection, readSkip, readSort, singleSort } from '../../legacy-options.ts';
import { argsOf, FILTERS, listKindOf, listPages, setFilter, text } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcSearch';

const REGEX_META = /[\\^$.*+?()[\]{}|]/;

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

/** The generic list filters of the legacy options (`equals` with `equalsField`, ...), and `inactive`. */
function genericFilters(options: Obj, kind: Kind, query: Record<string, string>): void {
  for (const op of FILTERS) {
    const value = options[op];
    const field = options[`${op}Field`];
    if (value === undefined && field === undefined) continue;
    if (!scalar(value) || typeof field !== 'string') throw new LegacyFailure(`${op} and ${op}Field go together`);
    setFilter(query, kind, op, field, String(value));
  }
  if (scalar(options['inactive'])) query['inactive'] = String(options['inactive']);
}

export const pcSearch: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const path = text(args, 'path', HATCH);
  const kind = listKindOf(path, HATCH);
  const sent = isPlainObject(args['body']) ? args['body'] : {};
  const options: Obj = isPlainObject(sent['options']) ? sent['options'] : sent;
  const query: Record<string, string> = {};
  genericFilters(options, kind, query);
  sortOf(options, query);
  const projection = readProjection(options['fields']);
  const filter = options['filter'] ?? options['query'];
  if (filter !== undefined && !isPlainObject(filter)) throw new LegacyFailure('filter must be an object of field and value');
  for (const [field, value] of Object.entries(filter ?? {})) {
    const [op, operand] = condition(field, value);
    setFilter(query, kind, op, field, operand);
  }
  // MongoDB's skip and limit: no limit (or 0) is every match, past the list's largest page too.
  const { results, total } = await listPages(api, path, query, readSkip(options['skip']), readLimit(options['limit']));
  return { status: 200, body: { results: results.map((r) => project(r, projection)), total } };
};

export const pcSearchHatch: HatchRecord = hatchRecord(
  HATCH,
  'platform-core',
  'a MongoDB-style search body becomes the platform\'s list filters (multiEquals, multiContains, multiStartsWith on the fields it filters on), refused with its reason when it needs more',
  { required: ['path', 'body'], properties: { path: { type: 'string', pattern: '^/' }, body: { type: 'object' } } },
  pcSearch,
);
