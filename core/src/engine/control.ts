/**
 * Job control actions. Each checks the lifecycle table (lifecycle.ts) against
 * the job's current status inside the job's change, so a refused action
 * changes nothing and two racing actions see each other's result.
 */
import type { Caller } from '../auth/caller.ts';
import { mayAccess, searcher } from '../auth/caller.ts';
import { BadRequestError, jobs as jobType, pageDocs, repository, ValidationError } from '../../../kernel/index.ts';
import type { ErrorDetail, Store } from '../../../kernel/index.ts';
import type { Engine, StartedJob } from './engine.ts';
import { END, START } from './types.ts';
import { ruleFor } from './lifecycle.ts';
import type { JobAction } from './lifecycle.ts';
import { initiatorOf } from './new-job.ts';
import { principalOf } from '../auth/principal.ts';
import type { StartOptions } from './new-job.ts';
import type { JobDoc } from '../jobs/document.ts';
import type { Working } from './working.ts';
import { JOBS } from '../store/collections.ts';

/** What a cancel's walk to a job's descendants leaves out of each: it reads only their ids and groups. */
const CHILD_UNNEEDED = ['variables', 'tasks', 'transitions', 'output', 'decorators'];

export type BulkAction = 'cancel' | 'pause' | 'resume';

/** Applies the lifecycle rule: true to go on, false when already in effect; throws when refused. */
export function allowed(w: Working, action: JobAction, what = `${action} job ${w.job._id}`): boolean {
  const rule = ruleFor(action, w.job.status);
  if (rule === 'noop') return false;
  if (rule !== 'apply') throw new BadRequestError(`Cannot ${what}: ${rule}`);
  return true;
}

export class JobControl {
  constructor(private readonly engine: Engine, private readonly store: Store) {}

  start(workflow: string, options: StartOptions, caller: Caller): Promise<StartedJob> {
    return this.engine.start(workflow, options, initiatorOf(caller));
  }

  /** A job the caller may act on; one it may not see is not found, as in searches. */
  async visibleJob(jobId: string, caller: Caller): Promise<JobDoc> {
    const job = await repository(this.store, JOBS).find(jobId);
    if (!job || !mayAccess(caller, job.groups)) throw JOBS.notFound(jobId);
    return job;
  }

  /** Checks every id first (docs/decisions.md D14): one refusal and nothing changes. */
  async bulk(action: BulkAction, jobIds: readonly string[], caller: Caller): Promise<void> {
    const problems: ErrorDetail[] = [];
    for (const id of new Set(jobIds)) {
      const job = await repository(this.store, JOBS).find(id);
      if (!job || !mayAccess(caller, job.groups)) problems.push({ parameter: id, message: 'no such job is visible to the caller' });
      else {
        const rule = ruleFor(action, job.status);
        if (rule !== 'apply' && rule !== 'noop') problems.push({ parameter: id, message: rule });
      }
    }
    if (problems.length > 0) throw new ValidationError(`Cannot ${action} ${problems.length} of ${jobIds.length} job(s); nothing was changed`, problems);
    for (const id of new Set(jobIds)) {
      if (action === 'cancel') await this.cancel(id, caller);
      else {
        await this.engine.mutate(id, caller.id, (w) => {
          if (!allowed(w, action)) return;
          w.touch();
          w.job.status = action === 'pause' ? 'paused' : 'running';
          if (action === 'resume') w.resumeWaiting();
        });
      }
    }
  }

  /**
   * Cancels a job and, after it, every descendant job still going that the
   * caller may see. A descendant hidden from the caller (its groups exclude
   * them) is left running: its owner decides its fate, and the cancel says
   * nothing of it, as a hidden job is not found (docs/auth.md).
   */
  private async cancel(jobId: string, caller: Caller): Promise<void> {
    const { result: changed } = await this.engine.mutate(jobId, caller.id, (w) => {
      if (!allowed(w, 'cancel')) return false;
      w.cancel();
      return true;
    });
    if (!changed) return;
    const ancestors = jobType.fields.get('ancestors')!;
    // No index holds ancestors, so this reads every job still going or in error, which only grow: on the store's
    // search thread in the caller's turn, like a search, and without the parts of a job it does not need.
    const page = await this.store.collection('jobs').searchJson(
      {
        where: { kind: 'and', items: [{ kind: 'compare', op: 'eq', field: ancestors, value: jobId }, { kind: 'in', field: jobType.fields.get('status')!, values: ['running', 'paused', 'error', 'incomplete'] }] },
        sort: [{ field: jobType.fields.get('_id')!, direction: 1 }],
        skip: 0,
        limit: 1000,
      },
      CHILD_UNNEEDED,
      searcher(caller),
    );
    for (const child of pageDocs(page)) {
      if (child['_id'] !== jobId && mayAccess(caller, child['groups'])) await this.cancel(child['_id'] as string, caller);
    }
  }

  async revert(jobId: string, fromTask: string, toTask: string, caller: Caller): Promise<void> {
    await this.visibleJob(jobId, caller);
    await this.engine.mutate(jobId, caller.id, (w) => {
      if (!allowed(w, 'revert')) return;
      const from = w.job.tasks[fromTask];
      const to = w.job.tasks[toTask];
      if (!from) throw new BadRequestError(`Cannot revert job ${jobId}: it has no task ${fromTask}`);
      if (!to) throw new BadRequestError(`Cannot revert job ${jobId}: it has no task ${toTask}`);
      if (from.status !== 'error') throw new BadRequestError(`Cannot revert job ${jobId}: fromTask ${fromTask} is ${from.status}, not in error`);
      if (to.status !== 'complete') throw new BadRequestError(`Cannot revert job ${jobId}: toTask ${toTask} is ${to.status}; it must be complete`);
      if (toTask === END) throw new BadRequestError(`Cannot revert job ${jobId} to ${END}`);
      from.status = 'incomplete';
      w.job.status = 'running';
      // workflow_start is no task to run: reverting to it starts the workflow over.
      if (toTask === START) w.follow(START, 'success');
      else w.start(toTask, {});
    });
  }

  /** Skips an errored task: it counts as complete with finish state success, and the job goes on. */
  async continueFrom(jobId: string, taskKey: string, caller: Caller): Promise<void> {
    await this.visibleJob(jobId, caller);
    await this.engine.mutate(jobId, caller.id, (w) => {
      if (!allowed(w, 'continue')) return;
      const entry = w.job.tasks[taskKey];
      if (!entry) throw new BadRequestError(`Cannot continue job ${jobId}: it has no task ${taskKey}`);
      if (entry.status !== 'error') throw new BadRequestError(`Cannot continue job ${jobId} from task ${taskKey}: the task is ${entry.status}, not in error`);
      entry.status = 'complete';
      entry.finish_state = 'success';
      w.job.status = 'running';
      w.touch();
      w.follow(taskKey, 'success');
    });
  }

  async retry(jobId: string, taskKey: string, variables: Record<string, unknown>, caller: Caller): Promise<void> {
    await this.visibleJob(jobId, caller);
    await this.engine.mutate(jobId, caller.id, (w) => {
      if (!allowed(w, 'retry')) return;
      const entry = w.job.tasks[taskKey];
      if (!entry) throw new BadRequestError(`Cannot retry task ${taskKey}: job ${jobId} has no such task`);
      if (entry.status !== 'error') throw new BadRequestError(`Cannot retry task ${taskKey}: it is ${entry.status}, not in error`);
      w.job.status = 'running';
      // New incoming values change what the job does: the one who gave them answers for it from now on (docs/auth.md).
      if (Object.keys(variables).length > 0) w.job._principal = principalOf(caller);
      w.start(taskKey, variables);
    });
  }

  async watch(jobId: string, watching: boolean, caller: Caller): Promise<void> {
    await this.visibleJob(jobId, caller);
    await this.engine.mutate(jobId, caller.id, (w) => {
      const has = w.job.watchers.includes(caller.id);
      if (has === watching) return;
      w.touch();
      w.job.watchers = watching ? [...w.job.watchers, caller.id] : w.job.watchers.filter((id) => id !== caller.id);
    });
  }
}
