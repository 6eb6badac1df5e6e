/**
 * addWatchers: the interface replaces it with `watch`, which adds only the
 * caller. Accounts other than the caller cannot be added through it, so they
 * are refused rather than silently left out.
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { CoreAnswer, HatchApi } from '../../run.ts';
import type { Scope } from '../../template.ts';
import { callOk, readBack } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

export async function weAddWatchers(args: unknown, _scope: Scope, api: HatchApi): Promise<CoreAnswer> {
  const { jobId, watchers } = isPlainObject(args) ? args : {};
  if (typeof jobId !== 'string' || jobId === '') throw new LegacyFailure('job_id is required');
  const wanted = Array.isArray(watchers) ? watchers.map(String) : [];
  const path = `/operations-manager/jobs/${encodeURIComponent(jobId)}`;
  if (wanted.length > 0) {
    const me = await api.call({ method: 'GET', path: '/whoami', query: {}, body: undefined });
    const caller = isPlainObject(me.body) ? me.body : {};
    // Legacy clients named watchers by account id or by username.
    const others = wanted.filter((w) => w !== caller['id'] && w !== caller['username']);
    if (others.length > 0) {
      throw new LegacyFailure(`addWatchers can only add the caller on this platform (POST /operations-manager/jobs/:jobId/watch); ${others.join(', ')} must watch the job themselves`);
    }
    await callOk(api, { method: 'POST', path: `${path}/watch` });
  }
  return readBack(api, path);
}

export const weAddWatchersHatch: HatchRecord = hatchRecord(
  'weAddWatchers',
  'workflow-engine',
  'watch adds only the caller; other accounts in the list are refused rather than silently left out',
  { required: ['jobId', 'watchers'], properties: { jobId: { type: 'string', minLength: 1 }, watchers: { type: 'array', items: { type: 'string' } } } },
  weAddWatchers,
);
