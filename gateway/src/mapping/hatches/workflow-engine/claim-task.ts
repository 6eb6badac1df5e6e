/**
 * claimTask: the legacy body named the owner in `user`; the new interface
 * splits that into two operations, so which one to call depends on the body
 * (templates have no conditions).
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { CoreAnswer, HatchApi } from '../../run.ts';
import type { Scope } from '../../template.ts';
import { callOk, readBack } from './common.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

export async function weClaimTask(args: unknown, _scope: Scope, api: HatchApi): Promise<CoreAnswer> {
  const { taskId, user } = isPlainObject(args) ? args : {};
  if (typeof taskId !== 'string' || taskId === '') throw new LegacyFailure('task_id is required');
  const path = `/operations-manager/tasks/${encodeURIComponent(taskId)}`;
  // A named user is an assignment (possibly to someone else); no user claims the task for the caller.
  if (user !== undefined && user !== null && user !== '') await callOk(api, { method: 'POST', path: `${path}/assign`, body: { userId: String(user) } });
  else await callOk(api, { method: 'POST', path: `${path}/claim` });
  return readBack(api, path);
}

export const weClaimTaskHatch: HatchRecord = hatchRecord(
  'weClaimTask',
  'workflow-engine',
  'claim or assign depending on whether the body names a user; templates have no conditions',
  { required: ['taskId'], properties: { taskId: { type: 'string', minLength: 1 }, user: { type: ['string', 'null'] } } },
  weClaimTask,
);
