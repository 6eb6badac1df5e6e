/**
 * `pcPage`: the legacy lists of accounts, groups and roles (`GET /accounts`,
 * `/user-management/groups`, ...). The legacy generic filters
 * (`equals`/`equalsField`, `contains`/`containsField`,
 * `startsWith`/`startsWithField`) become the platform's
 * `multiEquals[field]`, `multiContains[field]` and `multiStartsWith[field]`,
 * which the platform reads on these lists (it ignores the generic ones and
 * would answer everything); `inactive`, `sort` and `order` are passed on. A
 * `limit` of 0 (none, as in MongoDB) or above the largest page is served by
 * reading page after page: the legacy lists had no cap (docs/gateway.md,
 * legacy searches).
 *
 * with: {path, query: {limit?, skip?, ...the other list parameters}}
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Hatch } from '../../run.ts';
import { readLimit, readSkip } from '../../legacy-options.ts';
import { argsOf, FILTERS, listKindOf, listPages, send, setFilter, text } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject, setOwn } from '../../../../../kernel/index.ts';

const HATCH = 'pcPage';
const PASSED = ['sort', 'order', 'inactive'] as const;

export const pcPage: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const path = text(args, 'path', HATCH);
  const kind = listKindOf(path, HATCH);
  if (args['query'] !== undefined && !isPlainObject(args['query'])) throw new LegacyFailure(`${HATCH}: query must be an object`);
  const given = new Map(Object.entries(args['query'] ?? {}).map(([k, v]) => [k, String(v)]));
  const query: Record<string, string> = {};
  for (const key of PASSED) if (given.has(key)) setOwn(query, key, given.get(key)!);
  for (const op of FILTERS) {
    const value = given.get(op);
    const field = given.get(`${op}Field`);
    if ((value === undefined) !== (field === undefined)) throw new LegacyFailure(`${op} and ${op}Field go together`);
    if (value !== undefined && field !== undefined) setFilter(query, kind, op, field, value);
  }
  // Without a limit the list's own default page applies, as on the platform.
  if (!given.has('limit')) {
    const { body } = await send(api.call, { method: 'GET', path, query: given.has('skip') ? { ...query, skip: given.get('skip')! } : query });
    return { status: 200, body };
  }
  return { status: 200, body: await listPages(api, path, query, readSkip(given.get('skip')), readLimit(given.get('limit'))) };
};

export const pcPageHatch: HatchRecord = hatchRecord(
  HATCH,
  'platform-core',
  'the legacy generic filters become the platform\'s multiEquals/multiContains/multiStartsWith, and a legacy limit of 0 (none) or above the largest page is read page by page; the legacy lists had no cap',
  { required: ['path'], properties: { path: { type: 'string', pattern: '^/' }, query: { type: 'object' } } },
  pcPage,
);
