/**
 * The workflow engine. A job's document is the only truth about it and is
 * changed only through `mutate`: serialized per job in this process, and
 * committed with a revision check so another process's change is never
 * overwritten. A task is claimed (marked running) in a commit before its
 * handler runs, so no two processes ever run the same iteration; handlers of
 * a wave run after the commit, and their outcomes are committed together.
 *
 * No job holds the event loop: pure tasks run in bounded slices, one commit
 * each, and the next slice, a handler wave or a child job waits its turn
 * (nextTurn: one piece of work per turn of the event loop), so requests and
 * other jobs go on while one job loops; limits bound what a job may grow to
 * (docs/lifecycle.md, "Loops, recursion and limits").
 */
import { ConflictError, NotFoundError, ValidationError } from '../../../kernel/index.ts';
import type { Logger, Store } from '../../../kernel/index.ts';
import type { EngineObserver } from '../metrics/core-metrics.ts';
import { checkVariables, newJob, normalizeVariables } from './new-job.ts';
import type { Initiator, StartOptions } from './new-job.ts';
import type { ChildJobDeps } from './children.ts';
import { jobsInFlight, nextTurn, normalize } from './stored.ts';
import { LimitError, START } from './types.ts';
import type { TaskHandler, TaskOutcome, TaskServices, WorkflowDoc } from './types.ts';
import type { Authority } from './authority.ts';
import { authorize, jobServices } from './job-services.ts';
import { errorMessage, Working } from './working.ts';
import { limitMessage } from './limits.ts';
import type { JobLimits } from './limits.ts';
import type { Claimed, JobDoc } from './working.ts';

export interface EngineDeps {
  readonly store: Store;
  readonly logger: Logger;
  readonly workflows: { byName(name: string): Promise<WorkflowDoc | null> };
  readonly findTask: (app: string, name: string) => TaskHandler | undefined;
  readonly processTasksOnStart: boolean;
  readonly limits: JobLimits;
  readonly services?: Partial<Pick<TaskServices, 'runTransformation' | 'relay'>>;
  /** Decides, when a task runs, whether the job's principal may do what the task does outside the store. */
  readonly authority: Authority;
  readonly now?: () => number;
  /** Told of jobs started and finished and of task durations (the metrics). */
  readonly observer?: EngineObserver;
}

const ENDED = new Set(['complete', 'canceled', 'error']);

/**
 * One slice of pure tasks: at most this many runs or this long, whichever
 * comes first. Small enough that a looping job delays a request by about a
 * slice; large enough that a chain of quick tasks still costs few commits.
 */
const SLICE_TASKS = 50;
const SLICE_MS = 4;

export class Engine {
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Handlers in flight, by iteration, with their job so a cancel aborts only its own. */
  private readonly aborts = new Map<string, { readonly jobId: string; readonly controller: AbortController }>();
  /** Jobs whose next slice of pure tasks is scheduled, so each job has at most one waiting. */
  private readonly slicing = new Set<string>();
  private readonly waiters = new Map<string, Array<(job: JobDoc) => void>>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly now: () => number;
  private stopped = false;

  private readonly children: ChildJobDeps;

  constructor(private readonly deps: EngineDeps) {
    this.now = deps.now ?? Date.now;
    this.children = {
      startJob: (workflow, options, initiator, parent) => this.startJob(workflow, options, initiator, parent),
      whenEnded: (jobId) => this.whenEnded(jobId),
      maxChildJobDepth: deps.limits.maxChildJobDepth,
      reserve: async (rootId, count) => {
        const { maxJobsPerTree } = deps.limits;
        // Counted on the root's document, in a change of its own, so the count survives restarts and racing children.
        await this.mutate(rootId, 'Pronghorn', (w) => {
          const held = w.job._treeJobs ?? 1;
          if (held + count > maxJobsPerTree) throw new LimitError(limitMessage('maxJobsPerTree', maxJobsPerTree));
          w.job._treeJobs = held + count;
          w.changed = true;
        });
      },
      stopped: () => this.stopped,
    };
  }

  /** Runs `fn` after every earlier change of this job in this process has finished. */
  private lock<T>(jobId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(jobId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const tail = next.then(() => undefined, () => undefined);
    this.chains.set(jobId, tail);
    void tail.then(() => {
      if (this.chains.get(jobId) === tail) this.chains.delete(jobId);
    });
    return next;
  }

  /**
   * Applies a change to a job; `fn` may throw an AppError to refuse it,
   * leaving the job untouched. `prepare` reads what the change needs inside
   * the job's lock, so nothing it reads can be changed by this process meanwhile.
   */
  mutate<T, P = undefined>(jobId: string, actor: string, fn: (w: Working, prepared: P) => T, prepare?: () => Promise<P>): Promise<{ job: JobDoc; result: T }> {
    return this.lock(jobId, async () => {
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const prepared = (prepare ? await prepare() : undefined) as P;
        const found = (await this.deps.store.collection('jobs').findById(jobId)) as JobDoc | null;
        if (!found) throw new NotFoundError(`Job ${jobId} was not found`);
        const stored = normalize(found);
        let w = new Working(stored, this.now, actor, this.deps.limits);
        const result = fn(w, prepared);
        this.runPure(w);
        if (!w.changed) return { job: stored, result };
        w = this.withinSize(w, stored, actor);
        w.seal();
        const expected = typeof found._rev === 'number' ? found._rev : null;
        w.job._rev = (expected ?? 0) + 1;
        const ok = await this.deps.store.batch([{ op: 'replaceIfRev', collection: 'jobs', doc: w.job, expectedRev: expected }, ...w.writes]);
        if (!ok) continue; // another process changed it first: redo from what it wrote
        this.afterCommit(w);
        if (!ENDED.has(stored.status) && ENDED.has(w.job.status)) this.deps.observer?.jobFinished(w.job.status);
        return { job: w.job, result };
      }
      throw new ConflictError(`Job ${jobId} kept changing under this request; try again`);
    });
  }

  /**
   * A change that would make the job's document larger than maxJobBytes is
   * dropped whole; in its place the job as it was goes to error. Checked on
   * every commit, so no loop can grow a job past it by more than one slice.
   */
  private withinSize(w: Working, base: JobDoc, actor: string): Working {
    const { maxJobBytes } = this.deps.limits;
    if (Buffer.byteLength(JSON.stringify(w.job)) <= maxJobBytes) return w;
    const over = new Working(base, this.now, actor, this.deps.limits);
    // The error names a task the dropped change was running, when the job as it was has none in flight.
    over.abandon(limitMessage('maxJobBytes', maxJobBytes), Object.values(w.job._runs)[0]?.key);
    return over;
  }

  private afterCommit(w: Working): void {
    // A handler whose iteration the change closed (a cancel, a limit) is aborted; other jobs' handlers are not touched.
    for (const [iteration, run] of this.aborts) if (run.jobId === w.job._id && !w.job._runs[iteration]) run.controller.abort();
    if (ENDED.has(w.job.status)) {
      const waiting = this.waiters.get(w.job._id) ?? [];
      this.waiters.delete(w.job._id);
      for (const resolve of waiting) resolve(w.job);
    }
    this.execute(w.job, w.claimed);
  }

  async startJob(workflowName: string, options: StartOptions, initiator: Initiator, parent: JobDoc | null = null): Promise<JobDoc> {
    const workflow = await this.deps.workflows.byName(workflowName);
    if (!workflow) throw new ValidationError(`Workflow ${workflowName} does not exist`, [{ parameter: 'workflow', message: `no workflow is named ${workflowName}` }]);
    const given = options.variables ?? {};
    const undefinedNames = new Set(Object.entries(given).filter(([, v]) => v === undefined).map(([k]) => k));
    const variables = normalizeVariables(given);
    checkVariables(workflow, variables, undefinedNames, options.onTypeMismatch);
    const now = this.now();
    const fresh = newJob(workflow, { ...options, variables }, initiator, parent, now);
    let w = new Working(fresh, this.now, initiator.id, this.deps.limits);
    w.follow(START, 'success');
    this.runPure(w);
    w = this.withinSize(w, fresh, initiator.id);
    w.seal();
    w.job._rev = 0;
    await this.deps.store.batch([{ op: 'insert', collection: 'jobs', doc: w.job }, ...w.writes]);
    this.deps.logger.info('job started', { jobId: w.job._id, workflow: workflow.name, parent: parent?._id });
    this.deps.observer?.jobStarted();
    // A workflow of pure tasks only can end inside the change that starts it.
    if (ENDED.has(w.job.status)) this.deps.observer?.jobFinished(w.job.status);
    this.afterCommit(w);
    return w.job;
  }

  /** Resolves when the job is complete, canceled or in error. */
  async whenEnded(jobId: string): Promise<JobDoc> {
    let resolver: (job: JobDoc) => void = () => undefined;
    const settled = new Promise<JobDoc>((resolve) => {
      resolver = resolve;
      this.waiters.set(jobId, [...(this.waiters.get(jobId) ?? []), resolve]);
    });
    const now = (await this.deps.store.collection('jobs').findById(jobId)) as JobDoc | null;
    if (now && ENDED.has(now.status)) {
      // Ended before anyone waited (a child of quick tasks ends within its start): drop the waiter, or it stays forever.
      const left = (this.waiters.get(jobId) ?? []).filter((r) => r !== resolver);
      if (left.length > 0) this.waiters.set(jobId, left);
      else this.waiters.delete(jobId);
      return now;
    }
    return settled;
  }

  private isPure(job: JobDoc, key: string): boolean {
    const entry = job.tasks[key];
    const handler = entry === undefined ? undefined : this.deps.findTask(String(entry.app ?? 'WorkFlowEngine'), entry.name);
    // A task that reaches outside is never run inside a change: its authority is read from the store first.
    return handler?.pure === true && !handler.reach.outside;
  }

  /**
   * After a commit: pure runs left claimed go to the job's next slice, the
   * others to a handler wave; both start on a later turn of the event loop.
   */
  private execute(job: JobDoc, claimed: readonly Claimed[]): void {
    if (claimed.length === 0 || this.stopped) return;
    const effectful = claimed.filter((c) => !this.isPure(job, c.key));
    if (effectful.length < claimed.length) this.nextSlice(job._id);
    if (effectful.length === 0) return;
    this.track(nextTurn().then(() => this.runWave(job._id, effectful)), job._id, 'task wave failed');
  }

  private track(work: Promise<unknown>, jobId: string, what: string): void {
    const tracked = work.catch((err: unknown) => this.deps.logger.error(what, { jobId, error: errorMessage(err) }));
    this.inflight.add(tracked);
    void tracked.finally(() => this.inflight.delete(tracked));
  }

  /** Runs the pure runs the job has claimed, one slice, in a change of their own. */
  private nextSlice(jobId: string): void {
    if (this.slicing.has(jobId)) return;
    this.slicing.add(jobId);
    const slice = nextTurn().then(async () => {
      this.slicing.delete(jobId);
      if (this.stopped) return;
      // Read inside the change: a cancel committed meanwhile has emptied _runs, so nothing more runs.
      await this.mutate(jobId, 'Pronghorn', (w) => {
        for (const [iteration, run] of Object.entries(w.job._runs)) if (this.isPure(w.job, run.key)) w.claimed.push({ iteration, key: run.key });
      });
    });
    this.track(slice, jobId, 'task slice failed');
  }

  private async runWave(jobId: string, claimed: readonly Claimed[]): Promise<void> {
    if (this.stopped) return;
    // A turn has passed since the claim: run only what is still claimed (a cancel may have come first).
    const found = (await this.deps.store.collection('jobs').findById(jobId)) as JobDoc | null;
    if (!found) return;
    const job = normalize(found);
    const settled: Array<[Claimed, TaskOutcome]> = [];
    const pending: Array<[Claimed, Promise<TaskOutcome>]> = [];
    for (const c of claimed) {
      if (!job._runs[c.iteration]) continue;
      const result = this.invoke(job, c);
      if (result instanceof Promise) pending.push([c, result]);
      else settled.push([c, result]);
    }
    // Handlers declared async that do no I/O settle within a tick: commit them with the wave.
    const tick = new Promise<null>((resolve) => setImmediate(() => resolve(null)));
    for (const [c, promise] of pending) {
      const quick = await Promise.race([promise.then((o) => ({ o })), tick]);
      if (quick) settled.push([c, quick.o]);
      else {
        const later = promise.then((o) => this.finish(job._id, [[c, o]]));
        this.inflight.add(later);
        void later.finally(() => this.inflight.delete(later));
      }
    }
    if (settled.length > 0) await this.finish(job._id, settled);
  }

  /**
   * Runs pure tasks inside the change that claimed them, following their
   * transitions, so a chain of quick tasks costs one commit. One slice at
   * most: what is left stays claimed and runs in the job's next slice.
   * Claimed runs finish even when the job is paused or in error meanwhile,
   * as running tasks do; what they lead to then waits.
   */
  private runPure(w: Working): void {
    const until = performance.now() + SLICE_MS;
    for (let steps = 0; steps < SLICE_TASKS && (steps === 0 || performance.now() < until); steps += 1) {
      const next = w.claimed.find((c) => this.isPure(w.job, c.key));
      if (!next) return;
      w.takeClaim(next.iteration);
      const outcome = this.invoke(w.job, next);
      // A pure handler is synchronous by contract; treat a promise as the bug it is.
      w.complete(next.iteration, outcome instanceof Promise ? { finishState: 'error', outgoing: {}, error: 'a pure task returned a promise' } : outcome);
    }
  }

  private invoke(job: JobDoc, c: Claimed): TaskOutcome | Promise<TaskOutcome> {
    const entry = job.tasks[c.key]!;
    const handler = this.deps.findTask(String(entry.app ?? 'WorkFlowEngine'), entry.name);
    if (!handler) return { finishState: 'error', outgoing: {}, error: `No task ${entry.app ?? 'WorkFlowEngine'}.${entry.name} is available` };
    const controller = new AbortController();
    this.aborts.set(c.iteration, { jobId: job._id, controller });
    const startedNs = process.hrtime.bigint();
    const done = (o: TaskOutcome): TaskOutcome => {
      this.aborts.delete(c.iteration);
      this.deps.observer?.taskFinished(o.finishState, Number(process.hrtime.bigint() - startedNs) / 1e9);
      return o;
    };
    const failed = (err: unknown): TaskOutcome => done({ finishState: 'error', outgoing: {}, error: errorMessage(err), ...(err instanceof LimitError ? { fatal: true } : {}) });
    const run = (): TaskOutcome | Promise<TaskOutcome> =>
      handler.run({
        jobId: job._id,
        taskKey: c.key,
        task: entry,
        incoming: job._runs[c.iteration]?.incoming ?? {},
        jobVariables: job.variables,
        taskOutputs: job._outputs,
        signal: controller.signal,
        services: jobServices({ authority: this.deps.authority, children: this.children, ...(this.deps.services ? { services: this.deps.services } : {}) }, job, controller.signal),
      });
    try {
      // Checked as the task runs, not when the job started: roles taken away meanwhile count.
      const result = handler.reach.outside ? authorize(this.deps.authority, job, handler.reach.needs).then(run) : run();
      return result instanceof Promise ? result.then(done, failed) : done(result);
    } catch (err) {
      return failed(err);
    }
  }

  private async finish(jobId: string, results: ReadonlyArray<[Claimed, TaskOutcome]>): Promise<void> {
    // Stopped: the iterations stay claimed, and the next start runs them again.
    if (this.stopped) return;
    try {
      await this.mutate(jobId, 'Pronghorn', (w) => {
        for (const [c, outcome] of results) w.complete(c.iteration, outcome);
      });
    } catch (err) {
      this.deps.logger.error('task outcome not recorded', { jobId, error: errorMessage(err) });
    }
  }

  /**
   * On start, with processTasksOnStart: runs again the automatic iterations
   * that were claimed but not finished when the last process stopped
   * (at-least-once). Manual tasks simply keep waiting.
   */
  async recover(): Promise<number> {
    if (!this.deps.processTasksOnStart) return 0;
    let resumed = 0;
    for await (const job of jobsInFlight(this.deps.store)) {
      const claimed = Object.entries(job._runs).filter(([, run]) => job.tasks[run.key]?.type !== 'manual').map(([iteration, run]) => ({ iteration, key: run.key }));
      if (claimed.length > 0) {
        this.execute(job, claimed);
        resumed += 1;
      }
    }
    if (resumed > 0) this.deps.logger.info('resumed running jobs', { jobs: resumed });
    return resumed;
  }

  /** Waits until no handler or commit is in flight (tests and clean shutdown). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0 || this.chains.size > 0) {
      await Promise.allSettled([...this.inflight, ...this.chains.values()]);
    }
  }

  /** Stops starting work and aborts running handlers; their iterations stay claimed for the next start. */
  stop(): void {
    this.stopped = true;
    for (const run of this.aborts.values()) run.controller.abort();
  }
}
