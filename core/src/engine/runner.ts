/**
 * The engine's task runner: what runs a job's claimed iterations. No job
 * holds the event loop: pure tasks run inside the change that claimed them in
 * bounded slices, one commit each, and the next slice, a handler wave or a
 * child job waits its turn (TurnQueue: one piece of work per turn of the
 * event loop), so requests and other jobs go on while one job loops. A
 * handler runs only after the commit that claimed its iteration, so no two
 * processes ever run the same one; outcomes of a wave are committed together.
 */
import type { Logger, Store } from '../../../kernel/index.ts';
import type { EngineObserver } from '../metrics/core-metrics.ts';
import { normalizeJob } from '../jobs/document.ts';
import type { JobDoc } from '../jobs/document.ts';
import type { Authority } from './authority.ts';
import type { ChildJobDeps } from './children.ts';
import type { JobCommits } from './commits.ts';
import { authorize, jobServices } from './job-services.ts';
import { jobsInFlight } from './stored.ts';
import type { TurnQueue } from './turns.ts';
import { LimitError } from './types.ts';
import type { TaskContext, TaskHandler, TaskOutcome, TaskServices } from './types.ts';
import { errorMessage } from './working.ts';
import type { Claimed, Working } from './working.ts';

/**
 * One slice of pure tasks: at most this many runs or this long, whichever
 * comes first. Small enough that a looping job delays a request by about a
 * slice; large enough that a chain of quick tasks still costs few commits.
 */
const SLICE_TASKS = 50;
const SLICE_MS = 4;

/** The signal pure tasks are given: they run within one change, which nothing interrupts. */
const NEVER_ABORTED = new AbortController().signal;

/** The engine's own name in what it writes to a job. */
export const ENGINE_ACTOR = 'Pronghorn';

export interface RunnerDeps {
  readonly store: Store;
  readonly logger: Logger;
  readonly findTask: (app: string, name: string) => TaskHandler | undefined;
  readonly processTasksOnStart: boolean;
  readonly services?: Partial<Pick<TaskServices, 'runTransformation' | 'relay'>>;
  readonly authority: Authority;
  readonly turns: TurnQueue;
  readonly observer?: EngineObserver;
  readonly mutate: JobCommits['mutate'];
  /** What childJob may call: made by the engine, which starts the children. */
  readonly children: (runner: TaskRunner) => ChildJobDeps;
}

export class TaskRunner {
  /** Handlers in flight, by iteration, with their job so a cancel aborts only its own. */
  private readonly aborts = new Map<string, { readonly jobId: string; readonly controller: AbortController }>();
  /** Jobs whose next slice of pure tasks is scheduled, so each job has at most one waiting. */
  private readonly slicing = new Set<string>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly children: ChildJobDeps;
  private halted = false;

  constructor(private readonly deps: RunnerDeps) {
    this.children = deps.children(this);
  }

  get stopped(): boolean {
    return this.halted;
  }

  /** After a commit: handlers of iterations it closed (a cancel, a limit) are aborted, and what it claimed is run. */
  committed(w: Working): void {
    // Other jobs' handlers are not touched.
    for (const [iteration, run] of this.aborts) if (run.jobId === w.job._id && !w.job._runs[iteration]) run.controller.abort();
    this.execute(w.job, w.claimed);
  }

  private isPure(job: JobDoc, key: string): boolean {
    return this.pureHandler(job, key) !== undefined;
  }

  /** The handler of a task that may run inside a change, or undefined. */
  private pureHandler(job: JobDoc, key: string): TaskHandler | undefined {
    const entry = job.tasks[key];
    const handler = entry === undefined ? undefined : this.deps.findTask(String(entry.app ?? 'WorkFlowEngine'), entry.name);
    // A task that reaches outside is never run inside a change: its authority is read from the store first.
    return handler?.pure === true && !handler.reach.outside ? handler : undefined;
  }

  /**
   * After a commit: pure runs left claimed go to the job's next slice, the
   * others to a handler wave; both start on a later turn of the event loop.
   */
  private execute(job: JobDoc, claimed: readonly Claimed[]): void {
    if (claimed.length === 0 || this.halted) return;
    const effectful = claimed.filter((c) => !this.isPure(job, c.key));
    if (effectful.length < claimed.length) this.nextSlice(job._id);
    if (effectful.length === 0) return;
    this.track(this.deps.turns.next().then(() => this.runWave(job._id, effectful)), job._id, 'task wave failed');
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
    const slice = this.deps.turns.next().then(async () => {
      this.slicing.delete(jobId);
      if (this.halted) return;
      // Read inside the change: a cancel committed meanwhile has emptied _runs, so nothing more runs.
      await this.deps.mutate(jobId, ENGINE_ACTOR, (w) => {
        for (const [iteration, run] of Object.entries(w.job._runs)) if (this.isPure(w.job, run.key)) w.claimed.push({ iteration, key: run.key });
      });
    });
    this.track(slice, jobId, 'task slice failed');
  }

  private async runWave(jobId: string, claimed: readonly Claimed[]): Promise<void> {
    if (this.halted) return;
    // A turn has passed since the claim: run only what is still claimed (a cancel may have come first).
    const found = (await this.deps.store.collection('jobs').findById(jobId)) as JobDoc | null;
    if (!found) return;
    const job = normalizeJob(found);
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
  runPure(w: Working): void {
    const until = performance.now() + SLICE_MS;
    for (let steps = 0; steps < SLICE_TASKS && (steps === 0 || performance.now() < until); steps += 1) {
      // The handler found here is the one run: a task's handler was looked up twice a run.
      let next: Claimed | undefined;
      let handler: TaskHandler | undefined;
      for (const c of w.claimed) {
        handler = this.pureHandler(w.job, c.key);
        if (handler) {
          next = c;
          break;
        }
      }
      if (!next || !handler) return;
      w.takeClaim(next.iteration);
      const outcome = this.invoke(w.job, next, handler);
      // A pure handler is synchronous by contract; treat a promise as the bug it is.
      w.complete(next.iteration, outcome instanceof Promise ? { finishState: 'error', outgoing: {}, error: 'a pure task returned a promise' } : outcome);
    }
  }

  private invoke(job: JobDoc, c: Claimed, found?: TaskHandler): TaskOutcome | Promise<TaskOutcome> {
    const entry = job.tasks[c.key]!;
    const handler = found ?? this.deps.findTask(String(entry.app ?? 'WorkFlowEngine'), entry.name);
    if (!handler) return { finishState: 'error', outgoing: {}, error: `No task ${entry.app ?? 'WorkFlowEngine'}.${entry.name} is available` };
    // A pure task runs to its end inside the change that claimed it, so nothing can abort it meanwhile.
    const controller = handler.pure === true && !handler.reach.outside ? null : new AbortController();
    if (controller) this.aborts.set(c.iteration, { jobId: job._id, controller });
    const started = performance.now();
    // No closures made per run: under tsx every named one costs a call to name it, 1% of the engine's thread.
    try {
      // Checked as the task runs, not when the job started: roles taken away meanwhile count.
      const result = handler.reach.outside
        ? authorize(this.deps.authority, job, handler.reach.needs).then(() => this.run(handler, job, c, controller))
        : this.run(handler, job, c, controller);
      if (!(result instanceof Promise)) return this.ran(c, controller, started, result);
      return result.then(
        (o) => this.ran(c, controller, started, o),
        (err: unknown) => this.ran(c, controller, started, failure(err)),
      );
    } catch (err) {
      return this.ran(c, controller, started, failure(err));
    }
  }

  private run(handler: TaskHandler, job: JobDoc, c: Claimed, controller: AbortController | null): TaskOutcome | Promise<TaskOutcome> {
    return handler.run(new RunContext(job, c, controller?.signal ?? NEVER_ABORTED, this.deps, this.children));
  }

  /** A run has ended: its abort is dropped and its duration told. */
  private ran(c: Claimed, controller: AbortController | null, started: number, o: TaskOutcome): TaskOutcome {
    if (controller) this.aborts.delete(c.iteration);
    this.deps.observer?.taskFinished(o.finishState, (performance.now() - started) / 1000);
    return o;
  }

  private async finish(jobId: string, results: ReadonlyArray<[Claimed, TaskOutcome]>): Promise<void> {
    // Stopped: the iterations stay claimed, and the next start runs them again.
    if (this.halted) return;
    try {
      await this.deps.mutate(jobId, ENGINE_ACTOR, (w) => {
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

  /** Handlers and slices in flight in this process. */
  pending(): Array<Promise<unknown>> {
    return [...this.inflight];
  }

  /** Stops starting work and aborts running handlers; their iterations stay claimed for the next start. */
  stop(): void {
    this.halted = true;
    for (const run of this.aborts.values()) run.controller.abort();
  }
}

/**
 * What a handler is given. A class, not an object literal, so that the
 * services getter is the prototype's: a literal with a getter is a new
 * function and a hidden class each run (0.4 us).
 */
class RunContext implements TaskContext {
  readonly jobId: string;
  readonly taskKey: string;
  readonly task: TaskContext['task'];
  readonly incoming: TaskContext['incoming'];
  readonly jobVariables: TaskContext['jobVariables'];
  readonly taskOutputs: TaskContext['taskOutputs'];

  constructor(
    private readonly job: JobDoc,
    c: Claimed,
    readonly signal: AbortSignal,
    private readonly deps: RunnerDeps,
    private readonly children: ChildJobDeps,
  ) {
    this.jobId = job._id;
    this.taskKey = c.key;
    this.task = job.tasks[c.key]!;
    this.incoming = job._runs[c.iteration]?.incoming ?? {};
    this.jobVariables = job.variables;
    this.taskOutputs = job._outputs;
  }

  /** Made when a handler asks: most never do. */
  get services(): TaskServices {
    const { deps } = this;
    return jobServices({ authority: deps.authority, children: this.children, ...(deps.services ? { services: deps.services } : {}) }, this.job, this.signal);
  }
}

/** A handler that threw: the task ends in error, and a limit it met ends the job (working.ts). */
function failure(err: unknown): TaskOutcome {
  return { finishState: 'error', outgoing: {}, error: errorMessage(err), ...(err instanceof LimitError ? { fatal: true } : {}) };
}
