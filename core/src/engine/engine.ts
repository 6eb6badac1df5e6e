/**
 * The workflow engine. A job's document is the only truth about it and is
 * changed only through `mutate`: serialized per job in this process, and
 * committed with a revision check so another process's change is never
 * overwritten. A task is claimed (marked running) in a commit before its
 * handler runs, so no two processes ever run the same iteration; handlers of
 * a wave run after the commit, and their outcomes are committed together.
 */
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { EngineObserver } from '../metrics/core-metrics.ts';
import type { Condition } from '../search/conditions.ts';
import { jobs as jobType } from '../search/fields.ts';
import type { FieldDef } from '../search/fields.ts';
import type { Store } from '../store/types.ts';
import { checkVariables, newJob, normalizeVariables } from './new-job.ts';
import type { Initiator, StartOptions } from './new-job.ts';
import { START } from './types.ts';
import type { ChildJobRequest, ChildJobResult, TaskHandler, TaskOutcome, TaskServices, WorkflowDoc } from './types.ts';
import { errorMessage, Working } from './working.ts';
import type { Claimed, JobDoc } from './working.ts';

export interface EngineDeps {
  readonly store: Store;
  readonly logger: Logger;
  readonly workflows: { byName(name: string): Promise<WorkflowDoc | null> };
  readonly findTask: (app: string, name: string) => TaskHandler | undefined;
  readonly processTasksOnStart: boolean;
  readonly services?: Partial<Pick<TaskServices, 'runTransformation' | 'relay'>>;
  readonly now?: () => number;
  /** Told of jobs started and finished and of task durations (the metrics). */
  readonly observer?: EngineObserver;
}

const ENDED = new Set(['complete', 'canceled', 'error']);

/** The engine's own marker; not a search field, so clients cannot filter on it. */
const INFLIGHT: FieldDef = { path: '_inflight', type: 'boolean', array: false, arrayOfObjects: null, dateEncoding: null, sortable: false, textSearch: false };

/** Fills what documents written before the engine (seeded or imported jobs) lack. */
function normalize(stored: JobDoc): JobDoc {
  return { ...stored, _runs: stored._runs ?? {}, _waiting: stored._waiting ?? [], _outputs: stored._outputs ?? {}, _outputKeys: stored._outputKeys ?? null, error: stored.error ?? [], watchers: stored.watchers ?? [], groups: stored.groups ?? [] };
}

export class Engine {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly aborts = new Map<string, AbortController>();
  private readonly waiters = new Map<string, Array<(job: JobDoc) => void>>();
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly now: () => number;
  private stopped = false;

  constructor(private readonly deps: EngineDeps) {
    this.now = deps.now ?? Date.now;
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
        const w = new Working(stored, this.now, actor);
        const result = fn(w, prepared);
        this.runPure(w);
        if (!w.changed) return { job: stored, result };
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

  private afterCommit(w: Working): void {
    if (w.job.status === 'canceled') {
      for (const [iteration, controller] of this.aborts) if (!w.job._runs[iteration]) controller.abort();
    }
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
    checkVariables(workflow, variables, undefinedNames);
    const now = this.now();
    const w = new Working(newJob(workflow, { ...options, variables }, initiator, parent, now), this.now, initiator.id);
    w.follow(START, 'success');
    this.runPure(w);
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
    const settled = new Promise<JobDoc>((resolve) => this.waiters.set(jobId, [...(this.waiters.get(jobId) ?? []), resolve]));
    const now = (await this.deps.store.collection('jobs').findById(jobId)) as JobDoc | null;
    if (now && ENDED.has(now.status)) return now;
    return settled;
  }

  /** Runs the handlers of claimed iterations; outcomes that come at once are committed together. */
  private execute(job: JobDoc, claimed: readonly Claimed[]): void {
    if (claimed.length === 0 || this.stopped) return;
    const wave = this.runWave(job, claimed).catch((err: unknown) => this.deps.logger.error('task wave failed', { jobId: job._id, error: errorMessage(err) }));
    this.inflight.add(wave);
    void wave.finally(() => this.inflight.delete(wave));
  }

  private async runWave(job: JobDoc, claimed: readonly Claimed[]): Promise<void> {
    const settled: Array<[Claimed, TaskOutcome]> = [];
    const pending: Array<[Claimed, Promise<TaskOutcome>]> = [];
    for (const c of claimed) {
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
   * transitions, so a chain of quick tasks costs one commit. Bounded, so a
   * long loop yields: what is left is run after the commit.
   */
  private runPure(w: Working): void {
    for (let steps = 0; steps < 1000 && w.job.status === 'running'; steps += 1) {
      const next = w.claimed.find((c) => {
        const entry = w.job.tasks[c.key]!;
        return this.deps.findTask(String(entry.app ?? 'WorkFlowEngine'), entry.name)?.pure === true;
      });
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
    this.aborts.set(c.iteration, controller);
    const startedNs = process.hrtime.bigint();
    const done = (o: TaskOutcome): TaskOutcome => {
      this.aborts.delete(c.iteration);
      this.deps.observer?.taskFinished(o.finishState, Number(process.hrtime.bigint() - startedNs) / 1e9);
      return o;
    };
    const failed = (err: unknown): TaskOutcome => done({ finishState: 'error', outgoing: {}, error: errorMessage(err) });
    try {
      const result = handler.run({
        jobId: job._id,
        taskKey: c.key,
        task: entry,
        incoming: job._runs[c.iteration]?.incoming ?? {},
        jobVariables: job.variables,
        taskOutputs: job._outputs,
        signal: controller.signal,
        services: this.services(job),
      });
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

  private services(parent: JobDoc): TaskServices {
    const unavailable = (what: string) => () => Promise.reject(new Error(`${what} is not available in this core`));
    return {
      runChildJobs: (requests, mode) => this.runChildJobs(parent, requests, mode),
      runTransformation: this.deps.services?.runTransformation ?? unavailable('The transformations module'),
      relay: this.deps.services?.relay ?? unavailable('The orchestrator relay'),
    };
  }

  private async runChildJobs(parent: JobDoc, requests: readonly ChildJobRequest[], mode: 'parallel' | 'sequential'): Promise<ChildJobResult[]> {
    const initiator = { id: parent.metrics.user, username: String(parent.variables['initiator'] ?? 'Pronghorn') };
    const runOne = async (r: ChildJobRequest): Promise<ChildJobResult> => {
      const child = await this.startJob(r.workflow, { variables: r.variables, ...(r.description ? { description: r.description } : {}) }, initiator, parent);
      const ended = await this.whenEnded(child._id);
      return { _id: ended._id, name: ended.name, status: ended.status, variables: ended.variables, output: ended.output ?? null, error: ended.error.length > 0 ? ended.error : null };
    };
    if (mode === 'parallel') return Promise.all(requests.map(runOne));
    const results: ChildJobResult[] = [];
    for (const r of requests) results.push(await runOne(r));
    return results;
  }

  /**
   * On start, with processTasksOnStart: runs again the automatic iterations
   * that were claimed but not finished when the last process stopped
   * (at-least-once). Manual tasks simply keep waiting.
   */
  async recover(): Promise<number> {
    if (!this.deps.processTasksOnStart) return 0;
    const idField = jobType.fields.get('_id')!;
    let resumed = 0;
    for (let skip = 0; ; skip += 500) {
      const where: Condition = { kind: 'and', items: [{ kind: 'compare', op: 'eq', field: INFLIGHT, value: true }, { kind: 'compare', op: 'eq', field: jobType.fields.get('status')!, value: 'running' }] };
      const page = await this.deps.store.collection('jobs').search({ where, sort: [{ field: idField, direction: 1 }], skip, limit: 500 });
      for (const doc of page.docs) {
        const job = normalize(doc as JobDoc);
        const claimed = Object.entries(job._runs).filter(([, run]) => job.tasks[run.key]?.type !== 'manual').map(([iteration, run]) => ({ iteration, key: run.key }));
        if (claimed.length > 0) {
          this.execute(job, claimed);
          resumed += 1;
        }
      }
      if (page.docs.length < 500) break;
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
    for (const controller of this.aborts.values()) controller.abort();
  }
}
