/**
 * `pcAll`: a whole list of the authorization API as one array. Legacy list
 * operations (`GET /config/roles`, `GET /groups/list`, group members, the
 * method registry) answered everything at once, while the new lists page:
 * the hatch reads page after page until the upstream's `total` is reached
 * (pages.ts).
 *
 * with: {path, query?, pick?: [keys], where?: {dotted.path: value | {startsWith}}, one?: "<not found message>"}
 * `pick` keeps only those keys of each item; `where` keeps matching items;
 * `one` answers the first match alone, or fails with that message.
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Hatch } from '../../run.ts';
import { argsOf, listPages, text } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcAll';

type Test = (value: unknown) => boolean;

function at(item: unknown, path: string): unknown {
  let value = item;
  for (const part of path.split('.')) value = isPlainObject(value) ? value[part] : undefined;
  return value;
}

function tests(where: unknown): Array<[string, Test]> {
  if (where === undefined) return [];
  if (!isPlainObject(where)) throw new LegacyFailure(`${HATCH}: where must be an object`);
  return Object.entries(where).map(([path, expected]): [string, Test] => {
    if (isPlainObject(expected) && typeof expected['startsWith'] === 'string') {
      const prefix = expected['startsWith'];
      return [path, (v) => typeof v === 'string' && v.startsWith(prefix)];
    }
    return [path, (v) => v === expected];
  });
}

function picker(pick: unknown): (item: unknown) => unknown {
  if (pick === undefined) return (item) => item;
  if (!Array.isArray(pick) || !pick.every((k) => typeof k === 'string')) throw new LegacyFailure(`${HATCH}: pick must be a list of keys`);
  return (item) => (isPlainObject(item) ? Object.fromEntries(pick.filter((k: string) => k in item).map((k: string) => [k, item[k]])) : item);
}

function queryOf(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw new LegacyFailure(`${HATCH}: query must be an object`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

export const pcAll: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const path = text(args, 'path', HATCH);
  const query = queryOf(args['query']);
  const matches = tests(args['where']);
  const keeps = (item: unknown): boolean => matches.every(([p, test]) => test(at(item, p)));
  const pick = picker(args['pick']);
  const one = args['one'];
  const lookup = typeof one === 'string';
  const { results } = await listPages(api, path, query, 0, null, lookup ? (items) => items.some(keeps) : undefined);
  const kept = results.filter(keeps);
  if (lookup) {
    if (kept.length === 0) throw new LegacyFailure(one);
    return { status: 200, body: pick(kept[0]) };
  }
  return { status: 200, body: kept.map(pick) };
};

export const pcAllHatch: HatchRecord = hatchRecord(
  HATCH,
  'platform-core',
  'the legacy list answered everything at once; the new list pages, so the hatch reads page after page (and can filter, pick keys, or answer one match)',
  {
    required: ['path'],
    properties: {
      path: { type: 'string', pattern: '^/' },
      query: { type: 'object' },
      pick: { type: 'array', items: { type: 'string' } },
      where: { type: 'object' },
      one: { type: 'string', minLength: 1 },
    },
  },
  pcAll,
);
