/**
 * getJobList/:status: the legacy route took status names the new search does
 * not have (`active` for every job still going, and the spelling
 * `cancelled`), and its options name the page as `page: {skip, limit}` beside
 * a MongoDB filter, projection and sort (docs/gateway.md, legacy searches).
 */
import type { CoreAnswer, HatchApi } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Scope } from '../../template.ts';
import { legacySearch } from '../../legacy-search.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

/** Legacy status names that are not statuses of the new interface. */
const STATUS_NAMES: Readonly<Record<string, readonly string[]>> = {
  active: ['running', 'paused', 'error'],
  cancelled: ['canceled'],
};

export async function weJobList(args: unknown, _scope: Scope, api: HatchApi): Promise<CoreAnswer> {
  const { status, options } = isPlainObject(args) ? args : {};
  const o = isPlainObject(options) ? options : {};
  const given = String(status ?? '');
  const names = Object.hasOwn(STATUS_NAMES, given) ? STATUS_NAMES[given]! : [given];
  const byStatus = names.length === 1 ? { status: names[0] } : { status: { $in: names } };
  const page = isPlainObject(o['page']) ? o['page'] : {};
  const found = await legacySearch(api, {
    type: 'jobs',
    query: o['filter'] === undefined || o['filter'] === null ? byStatus : { $and: [byStatus, o['filter']] },
    sort: o['sort'],
    skip: page['skip'],
    limit: page['limit'],
    fields: o['fields'],
  });
  return { status: 200, body: { results: found.docs, skip: found.skip, limit: found.limit ?? 0, total: found.total } };
}

export const weJobListHatch: HatchRecord = hatchRecord(
  'weJobList',
  'workflow-engine',
  'legacy status names (active, cancelled) the new search does not have, and a page given as page: {skip, limit}',
  { required: ['status'], properties: { status: { type: 'string', minLength: 1 }, options: { type: 'object' } } },
  weJobList,
);
