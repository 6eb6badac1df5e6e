/**
 * `pcPage`: the legacy lists of accounts, groups and roles (`GET /accounts`,
 * `/user-management/groups`, ...) with the platform's generic parameters.
 * They are passed on, except that a `limit` of 0 (none, as in MongoDB) or
 * above the list's largest page is served by reading page after page: the
 * legacy lists had no cap (docs/gateway.md, legacy searches).
 *
 * with: {path, query: {limit?, skip?, ...the other list parameters}}
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { Hatch } from '../../run.ts';
import { readLimit, readSkip } from '../../legacy-options.ts';
import { argsOf, listPages, send, text } from './common.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

const HATCH = 'pcPage';

export const pcPage: Hatch = async (raw, _scope, api) => {
  const args = argsOf(raw, HATCH);
  const path = text(args, 'path', HATCH);
  if (args['query'] !== undefined && !isPlainObject(args['query'])) throw new LegacyFailure(`${HATCH}: query must be an object`);
  const query = Object.fromEntries(Object.entries(args['query'] ?? {}).map(([k, v]) => [k, String(v)]));
  const { limit: givenLimit, skip: givenSkip, ...rest } = query;
  // Without a limit the list's own default page applies, as on the platform.
  if (givenLimit === undefined) {
    const { body } = await send(api.call, { method: 'GET', path, query });
    return { status: 200, body };
  }
  return { status: 200, body: await listPages(api, path, rest, readSkip(givenSkip), readLimit(givenLimit)) };
};

export const pcPageHatch: HatchRecord = {
  name: 'pcPage',
  family: 'platform-core',
  why: 'a legacy limit of 0 (none) or above the largest page must be read page by page; the legacy lists had no cap',
  with: {
    type: 'object',
    required: ['path'],
    additionalProperties: false,
    properties: { path: { type: 'string', pattern: '^/' }, query: { type: 'object' } },
  },
  run: pcPage,
};
