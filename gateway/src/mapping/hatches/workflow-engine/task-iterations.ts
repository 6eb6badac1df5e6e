/**
 * getTaskIterations: Rule 4 reads a job's `tasks` map; the legacy answer is
 * one task's `iterations`, picked by a key that arrives in the request, which
 * a template path cannot name.
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { CoreAnswer, HatchApi } from '../../run.ts';
import type { Scope } from '../../template.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

export async function weTaskIterations(args: unknown, _scope: Scope, _api: HatchApi): Promise<CoreAnswer> {
  const { tasks, task, job } = isPlainObject(args) ? args : {};
  const entry = isPlainObject(tasks) && typeof task === 'string' && Object.hasOwn(tasks, task) ? tasks[task] : undefined;
  if (!isPlainObject(entry)) throw new LegacyFailure(`Job ${String(job)} has no task ${String(task)}`);
  return { status: 200, body: Array.isArray(entry['iterations']) ? entry['iterations'] : [] };
}

export const weTaskIterationsHatch: HatchRecord = hatchRecord(
  'weTaskIterations',
  'workflow-engine',
  'the answer is one task of the job\'s tasks map, picked by a key from the request, which a template path cannot name',
  { required: ['tasks', 'task', 'job'], properties: { tasks: { type: 'object' }, task: { type: 'string', minLength: 1 }, job: { type: 'string', minLength: 1 } } },
  weTaskIterations,
);
