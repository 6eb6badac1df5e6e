/**
 * The workflow engine: starts jobs and changes them. It is made of two
 * layers: the commit layer (commits.ts), through which every change of a job
 * is serialized and committed with a revision check, and the task runner
 * (runner.ts), which runs what a change claimed; limits bound what a job may
 * grow to (docs/lifecycle.md, "Loops, recursion and limits").
 */
import { newObjectId, ValidationError } from '../../../kernel/index.ts';
import type { Logger, Store } from '../../../kernel/index.ts';
import type { EngineObserver } from '../metrics/core-metrics.ts';
import type { JobDoc, JobJson } from '../jobs/document.ts';
import type { Authority } from './authority.ts';
import { JobCommits } from './commits.ts';
import type { JobLimits } from './limits.ts';
import { limitMessage } from './limits.ts';
import { withFields } from '../jobs/copy.ts';
import { checkVariables, newJob, normalizeVariables } from './new-job.ts';
import type { Initiator, StartOptions } from './new-job.ts';
import { ENGINE_ACTOR, TaskRunner } from './runner.ts';
import { TurnQueue } from './turns.ts';
import { LimitError, START } from './types.ts';
import type { TaskHandler, TaskServices, StudioWorkflow } from './types.ts';
import type { Working } from './working.ts';

export interface EngineDeps {
  readonly store: Store;
  readonly logger: Logger;
  readonly workflows: { byName(name: string): Promise<StudioWorkflow | null> };
  readonly findTask: (app: string, name: string) => TaskHandler | undefined;
  readonly processTasksOnStart: boolean;
  readonly limits: JobLimits;
  readonly services?: Partial<Pick<TaskServices, 'runTransformation' | 'relay'>>;
  /** Decides, when a task runs, whether the job's principal may do what the task does outside the store. */
  readonly authority: Authority;
  readonly now?: () => number;
  /** Told of jobs started and finished and of task durations (the metrics). */
  readonly observer?: EngineObserver;
  /** Where slices, waves and child jobs wait their turn; the engine's own unless given. */
  readonly turns?: TurnQueue;
}

/** A job just started, as committed, with its JSON as stored and as shown. */
export interface StartedJob {
  readonly job: JobDoc;
  readonly json: JobJson;
}

export class Engine {
  private readonly now: () => number;
  private readonly commits: JobCommits;
  private readonly runner: TaskRunner;

  constructor(private readonly deps: EngineDeps) {
    this.now = deps.now ?? Date.now;
    const turns = deps.turns ?? new TurnQueue();
    this.commits = new JobCommits({
      store: deps.store,
      now: this.now,
      limits: deps.limits,
      inChange: (w) => this.runner.runPure(w),
      committed: (w) => this.runner.committed(w),
      ...(deps.observer ? { observer: deps.observer } : {}),
    });
    this.runner = new TaskRunner({
      store: deps.store,
      logger: deps.logger,
      findTask: deps.findTask,
      processTasksOnStart: deps.processTasksOnStart,
      authority: deps.authority,
      turns,
      mutate: (jobId, actor, fn, prepare) => this.commits.mutate(jobId, actor, fn, prepare),
      children: (runner) => ({
        startJob: (workflow, options, initiator, parent) => this.startJob(workflow, options, initiator, parent),
        whenEnded: (jobId) => this.commits.whenEnded(jobId),
        maxChildJobDepth: deps.limits.maxChildJobDepth,
        reserve: (rootId, count) => this.reserve(rootId, count),
        stopped: () => runner.stopped,
        nextTurn: () => turns.next(),
      }),
      ...(deps.services ? { services: deps.services } : {}),
      ...(deps.observer ? { observer: deps.observer } : {}),
    });
  }

  /** Counted on the root's document, in a change of its own, so the count survives restarts and racing children. */
  private async reserve(rootId: string, count: number): Promise<void> {
    const { maxJobsPerTree } = this.deps.limits;
    await this.commits.mutate(rootId, ENGINE_ACTOR, (w) => {
      const held = w.job._treeJobs ?? 1;
      if (held + count > maxJobsPerTree) throw new LimitError(limitMessage('maxJobsPerTree', maxJobsPerTree));
      w.job._treeJobs = held + count;
      w.changed = true;
    });
  }

  /**
   * Applies a change to a job; `fn` may throw an AppError to refuse it,
   * leaving the job untouched (commits.ts).
   */
  mutate<T, P = undefined>(jobId: string, actor: string, fn: (w: Working, prepared: P) => T, prepare?: () => Promise<P>): Promise<{ job: JobDoc; result: T }> {
    return this.commits.mutate(jobId, actor, fn, prepare);
  }

  async startJob(workflowName: string, options: StartOptions, initiator: Initiator, parent: JobDoc | null = null): Promise<JobDoc> {
    return (await this.start(workflowName, options, initiator, parent)).job;
  }

  /** Starts a job and answers it as committed, with its JSON (a start's answer shows the job as it was stored). */
  async start(workflowName: string, options: StartOptions, initiator: Initiator, parent: JobDoc | null = null): Promise<StartedJob> {
    const workflow = await this.deps.workflows.byName(workflowName);
    if (!workflow) throw new ValidationError(`Workflow ${workflowName} does not exist`, [{ parameter: 'workflow', message: `no workflow is named ${workflowName}` }]);
    const given = options.variables ?? {};
    const undefinedNames = new Set(Object.entries(given).filter(([, v]) => v === undefined).map(([k]) => k));
    const variables = normalizeVariables(given);
    checkVariables(workflow, variables, undefinedNames, options.onTypeMismatch);
    const now = this.now();
    const _id = newObjectId(now);
    const made = withFields(options, { variables });
    // The same new job each time: the first change is made on it, and it is made again only if that change is dropped.
    const fresh = (): JobDoc => newJob(workflow, made, initiator, parent, now, _id);
    const started = await this.commits.insert(fresh, initiator.id, (w) => w.follow(START, 'success'));
    // At debug: the job's document and the jobs-started metric record every start, and a line at info cost a
    // start about 2-8% of its time (BENCHMARKS.md, "Where a job's time goes").
    if (this.deps.logger.isDebugEnabled()) this.deps.logger.debug('job started', { jobId: started.job._id, workflow: workflow.name, parent: parent?._id });
    return started;
  }

  /** Resolves when the job is complete, canceled or in error. */
  whenEnded(jobId: string): Promise<JobDoc> {
    return this.commits.whenEnded(jobId);
  }

  /** Runs again the automatic iterations a stopped process left claimed (runner.ts). */
  recover(): Promise<number> {
    return this.runner.recover();
  }

  /** Waits until no handler or commit is in flight (tests and clean shutdown). */
  async idle(): Promise<void> {
    for (let pending = this.pending(); pending.length > 0; pending = this.pending()) await Promise.allSettled(pending);
  }

  private pending(): Array<Promise<unknown>> {
    return [...this.runner.pending(), ...this.commits.pending()];
  }

  /** Stops starting work and aborts running handlers; their iterations stay claimed for the next start. */
  stop(): void {
    this.runner.stop();
  }
}
