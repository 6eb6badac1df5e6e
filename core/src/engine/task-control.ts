/**
 * Manual-task and group actions: finish, claim, assign, release, the manual
 * controller, continue by task document, and a job's groups.
 */
import type { Caller } from '../auth/caller.ts';
import { mayAccess } from '../auth/caller.ts';
import { BadRequestError, NotFoundError, repository, tasks as taskType, ValidationError } from '../../../kernel/index.ts';
import type { Store } from '../../../kernel/index.ts';
import { allowed } from './control.ts';
import type { JobControl } from './control.ts';
import type { Engine } from './engine.ts';
import type { FinishState } from './types.ts';
import type { Working } from './working.ts';
import { TASKS } from '../store/collections.ts';

export type GroupChange = { readonly op: 'add'; readonly groupId: string } | { readonly op: 'replace'; readonly groups: readonly string[] } | { readonly op: 'clear' } | { readonly op: 'remove'; readonly groupId: string };

export class TaskControl {
  constructor(private readonly engine: Engine, private readonly store: Store, private readonly jobs: JobControl) {}

  /** The job and task key of a task document the caller may see. */
  private async locate(taskId: string, caller: Caller): Promise<{ jobId: string; key: string }> {
    const doc = await repository(this.store, TASKS).find(taskId);
    const job = doc?.['job'] as { _id?: string; task?: string } | undefined;
    if (!doc || !job?._id || !job.task || !mayAccess(caller, doc['groups'])) throw TASKS.notFound(taskId);
    await this.jobs.visibleJob(job._id, caller);
    return { jobId: job._id, key: job.task };
  }

  /** The running iteration of a manual task, or a 400 saying why there is none. */
  private manualRun(w: Working, key: string): string {
    const entry = w.job.tasks[key];
    if (!entry) throw new BadRequestError(`Job ${w.job._id} has no task ${key}`);
    if (entry.type !== 'manual') throw new BadRequestError(`Task ${key} of job ${w.job._id} is not a manual task`);
    const iteration = w.runOf(key);
    if (!iteration) throw new BadRequestError(`Task ${key} of job ${w.job._id} is ${entry.status}, not waiting for a person`);
    return iteration;
  }

  async finish(jobId: string, key: string, finishState: FinishState, variables: Record<string, unknown>, caller: Caller): Promise<void> {
    await this.jobs.visibleJob(jobId, caller);
    await this.engine.mutate(jobId, caller.id, (w) => {
      allowed(w, 'finish', `finish task ${key} of job ${jobId}`);
      const iteration = this.manualRun(w, key);
      const owner = w.job._runs[iteration]!.owner;
      if (owner && owner !== caller.id) throw new BadRequestError(`Task ${key} of job ${jobId} is claimed by another user; it must be released or assigned first`);
      w.complete(iteration, { finishState, outgoing: variables });
    });
  }

  async setOwner(taskId: string, action: 'claim' | 'assign' | 'release', caller: Caller, userId?: string): Promise<void> {
    const { jobId, key } = await this.locate(taskId, caller);
    if (action === 'assign' && !(await this.store.collection('accounts').findById(userId!))) {
      throw new ValidationError(`No account ${userId} exists`, [{ parameter: 'body.userId', message: 'is not the id of an account' }]);
    }
    await this.engine.mutate(jobId, caller.id, (w) => {
      allowed(w, action, `${action} task ${taskId}`);
      const iteration = this.manualRun(w, key);
      if (iteration !== taskId) throw new BadRequestError(`Task ${taskId} is an earlier iteration; the running one is ${iteration}`);
      const run = w.job._runs[iteration]!;
      const next = action === 'claim' ? caller.id : action === 'assign' ? userId! : null;
      if (action === 'claim' && run.owner && run.owner !== caller.id) throw new BadRequestError(`Task ${taskId} is already claimed by another user`);
      if (run.owner === next) return;
      w.touch();
      run.owner = next;
      w.writes.push({ op: 'replace', collection: 'tasks', doc: w.taskDoc(iteration, 'running') });
    });
  }

  async continueTask(taskId: string, caller: Caller): Promise<void> {
    const { jobId, key } = await this.locate(taskId, caller);
    await this.jobs.continueFrom(jobId, key, caller);
  }

  /** What a manual task shows and collects. */
  async manualController(jobId: string, key: string, caller: Caller): Promise<Record<string, unknown>> {
    const job = await this.jobs.visibleJob(jobId, caller);
    const entry = job.tasks[key];
    if (!entry) throw new NotFoundError(`Job ${jobId} has no task ${key}`);
    if (entry.type !== 'manual') throw new BadRequestError(`Task ${key} of job ${jobId} is not a manual task`);
    const iteration = Object.entries(job._runs ?? {}).find(([, run]) => run.key === key);
    return {
      jobId,
      taskId: key,
      iteration: iteration?.[0] ?? null,
      status: entry.status,
      owner: iteration?.[1].owner ?? null,
      view: entry['view'] ?? '/workflow_engine/task/ViewData',
      incoming: iteration?.[1].incoming ?? entry.variables?.incoming ?? {},
      outgoing: entry.variables?.outgoing ?? {},
      finishStates: ['success', 'failure', 'error'],
    };
  }

  async changeGroups(jobId: string, change: GroupChange, caller: Caller): Promise<void> {
    await this.jobs.visibleJob(jobId, caller);
    const named = change.op === 'replace' ? [...change.groups] : change.op === 'add' ? [change.groupId] : [];
    const found = await this.store.collection('groups').findByIds(named);
    const unknown = named.filter((id) => !found.some((g) => g['_id'] === id));
    if (unknown.length > 0) throw new ValidationError(`Unknown group(s): ${unknown.join(', ')}`, unknown.map((id) => ({ parameter: id, message: 'is not the id of a group' })));
    const jobField = taskType.fields.get('job._id')!;
    await this.engine.mutate(jobId, caller.id, (w) => {
      const before = w.job.groups;
      const after =
        change.op === 'add' ? [...new Set([...before, change.groupId])]
        : change.op === 'replace' ? [...new Set(change.groups)]
        : change.op === 'clear' ? []
        : before.filter((g) => g !== change.groupId);
      if (change.op === 'remove' && !before.includes(change.groupId)) throw new BadRequestError(`Job ${jobId} does not have group ${change.groupId}`);
      if (JSON.stringify(after) === JSON.stringify(before)) return;
      w.touch();
      w.job.groups = after;
      // Task documents carry their job's groups, so visibility of tasks follows. Only that field is set, in
      // the job's commit: a task document read here and written back whole could undo a status another
      // change wrote meanwhile.
      w.writes.push({ op: 'setFields', collection: 'tasks', where: { kind: 'compare', op: 'eq', field: jobField, value: jobId }, fields: { groups: after } });
    });
  }
}
