/**
 * A job being changed: a copy of the stored document (a new job itself) plus the task-document
 * writes and the work to do once the change is committed. All rules about
 * how tasks start, finish and lead to each other live here; nothing here
 * touches the store or runs a handler.
 */
import { ownProperty, setOwn } from '../../../kernel/index.ts';
import type { WriteOp } from '../../../kernel/index.ts';
import { canReach, successors } from './graph.ts';
import { newIterationId } from './iteration-id.ts';
import { END, START, VAR_REFERENCE } from './types.ts';
import type { FinishState, TaskOutcome, WorkflowTask } from './types.ts';
import { limitMessage } from './limits.ts';
import type { JobLimits } from './limits.ts';
import { copyJson, withFields } from '../jobs/copy.ts';
import type { JobDoc, Run, TaskStatus } from '../jobs/document.ts';

/** A run this process must execute once the change is committed. */
export interface Claimed {
  readonly iteration: string;
  readonly key: string;
}

export class Working {
  readonly job: JobDoc;
  readonly writes: WriteOp[] = [];
  readonly claimed: Claimed[] = [];
  /** Task documents inserted by this change, so finishing them here rewrites the insert instead of adding a write. */
  private readonly inserted = new Map<string, number>();
  changed = false;

  /** Changes a copy of `stored`, or `stored` itself when nothing else holds it (a new job, commits.ts `insert`). */
  constructor(stored: JobDoc, private readonly now: () => number, private readonly actor: string, private readonly limits: JobLimits, on: 'a copy' | 'in place' = 'a copy') {
    this.job = on === 'in place' ? stored : copyJson(stored);
    this.job._runs = runTable(this.job._runs);
  }

  /** Called before commit: keeps the restart marker true exactly while iterations are claimed. */
  seal(): void {
    this.job._inflight = Object.keys(this.job._runs).length > 0;
  }

  touch(): void {
    this.changed = true;
    this.job.last_updated = this.isoNow();
    this.job.last_updated_by = this.actor;
  }

  private isoAt = Number.NaN;
  private iso = '';

  /** The time as ISO text, made once per millisecond: a chain of tasks touches the job many times in one. */
  private isoNow(): string {
    const now = this.now();
    if (now !== this.isoAt) {
      this.isoAt = now;
      this.iso = new Date(now).toISOString();
    }
    return this.iso;
  }

  /** A transition fired into `key`: start it now, or let it wait (paused job, or a join still pending). */
  activate(key: string): void {
    this.touch();
    if (this.job.status !== 'running' || !this.joinReady(key)) {
      if (!this.job._waiting.includes(key)) this.job._waiting.push(key);
      return;
    }
    if (this.job._waiting.includes(key)) this.job._waiting = this.job._waiting.filter((k) => k !== key);
    if (key === END) this.completeJob();
    else this.start(key, {});
  }

  /** A task waits while a running task could still lead to it, so parallel branches join. */
  private joinReady(key: string): boolean {
    return !Object.values(this.job._runs).some((run) => run.key !== key && canReach(this.job.transitions, run.key, key));
  }

  /** Claims a new iteration of a task; automatic ones are handed to the engine to run after commit. */
  start(key: string, overrides: Record<string, unknown>): void {
    this.touch();
    const entry = this.job.tasks[key]!;
    if (this.job._taskRuns >= this.limits.maxTaskRunsPerJob) {
      // The run never starts, so a loop ends here however its workflow is drawn.
      entry.status = 'error';
      this.fail(key, limitMessage('maxTaskRunsPerJob', this.limits.maxTaskRunsPerJob));
      return;
    }
    this.job._taskRuns += 1;
    const iteration = newIterationId();
    const incoming = { ...this.resolveIncoming(entry), ...overrides };
    entry.status = 'running';
    entry.iterations.push(iteration);
    const over = entry.iterations.length - this.limits.maxIterationsListed;
    if (over > 0) {
      entry.iterations.splice(0, over);
      entry.iterationsOmitted = (entry.iterationsOmitted ?? 0) + over;
    }
    entry.metrics = { start_time: this.now(), user: this.job.metrics.user };
    delete entry.finish_state;
    this.job._runs[iteration] = { key, incoming, start: this.now(), owner: null };
    this.inserted.set(iteration, this.writes.length);
    this.writes.push({ op: 'insert', collection: 'tasks', doc: this.taskDoc(iteration, 'running') });
    if (entry.type !== 'manual') this.claimed.push({ iteration, key });
  }

  /** `$var.job.X` and `$var.<task>.X` resolve only as direct top-level incoming values. */
  private resolveIncoming(entry: WorkflowTask): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(entry.variables?.incoming ?? {})) {
      const ref = typeof value === 'string' ? VAR_REFERENCE.exec(value) : null;
      // Only own keys are variables: `$var.job.constructor` finds nothing, not Object (docs/security.md).
      if (!ref) setOwn(out, name, value);
      else if (ref[1] === 'job') setOwn(out, name, ownProperty(this.job.variables, ref[2]!) ?? null);
      else setOwn(out, name, ownProperty(ownProperty(this.job._outputs, ref[1]!), ref[2]!) ?? null);
    }
    return out;
  }

  /** Records how an iteration ended and follows the transitions of its finish state. */
  complete(iteration: string, outcome: TaskOutcome): boolean {
    const run = this.job._runs[iteration];
    if (!run) return false; // canceled, or finished by someone else meanwhile
    this.touch();
    const entry = this.job.tasks[run.key]!;
    const failed = outcome.finishState === 'error';
    entry.status = failed ? 'error' : 'complete';
    entry.finish_state = outcome.finishState;
    entry.metrics = withFields(entry.metrics, { end_time: this.now(), finish_state: outcome.finishState, run_time: this.now() - run.start });
    if (outcome.fatal) {
      // A limit: no transition is followed, not even an error one, so the workflow cannot route around it.
      delete this.job._runs[iteration];
      this.writeTask(iteration, this.taskDoc(iteration, entry.status, run, outcome));
      this.fail(run.key, errorMessage(outcome.error));
      return true;
    }
    this.job._outputs[run.key] = outcome.outgoing;
    for (const [name, target] of Object.entries(entry.variables?.outgoing ?? {})) {
      const ref = typeof target === 'string' ? VAR_REFERENCE.exec(target) : null;
      // Defined, not assigned: a variable named `__proto__` (a workflow saved before such targets were refused) stays data.
      if (ref && ref[1] === 'job' && Object.hasOwn(outcome.outgoing, name)) setOwn(this.job.variables, ref[2]!, outcome.outgoing[name] ?? null);
    }
    for (const [name, value] of Object.entries(outcome.setJobVariables ?? {})) setOwn(this.job.variables, name, value);
    delete this.job._runs[iteration];
    this.writeTask(iteration, this.taskDoc(iteration, entry.status, run, outcome));
    this.updateProgress();
    this.follow(run.key, outcome.finishState, outcome.error);
    return true;
  }

  /** Follows the transitions of a finish state; none at all is an error of the job. */
  follow(key: string, state: FinishState, error?: unknown): void {
    const next = successors(this.job.transitions, key, state);
    if (next.length === 0) {
      const message = state === 'error' ? errorMessage(error) : `Job has no available transitions from task ${key} for finish state ${state}`;
      this.fail(key, message);
      return;
    }
    for (const to of next) this.activate(to);
    this.settle();
  }

  /** Starts what became ready while the job was paused. */
  resumeWaiting(): void {
    for (const key of [...this.job._waiting]) this.activate(key);
    this.settle();
  }

  /** The iteration in flight of a task, if any. */
  runOf(key: string): string | null {
    return Object.entries(this.job._runs).find(([, run]) => run.key === key)?.[0] ?? null;
  }

  /** When nothing runs, waiting joins resolve; a job with nothing left to do and no end reached is stuck. */
  settle(): void {
    if (this.job.status !== 'running' || Object.keys(this.job._runs).length > 0) return;
    const waiting = [...this.job._waiting];
    for (const key of waiting) this.activate(key);
    if (this.job.status === 'running' && Object.keys(this.job._runs).length === 0 && this.job._waiting.length === 0 && this.job.tasks[END]?.status !== 'complete') {
      this.fail(END, 'Job has no available transitions');
    }
  }

  fail(task: string, message: unknown): void {
    this.touch();
    this.job.error.push({ task, message, timestamp: this.now() });
    this.job.status = 'error';
  }

  private completeJob(): void {
    const end = this.job.tasks[END];
    if (end) {
      end.status = 'complete';
      end.metrics = { end_time: this.now(), run_time: this.now() - this.job.metrics.start_time };
    }
    this.job.status = 'complete';
    this.job.metrics.end_time = this.now();
    this.job.metrics.progress = 1;
    this.job.output = this.job._outputKeys === null ? null : Object.fromEntries(this.job._outputKeys.map((k) => [k, this.job.variables[k] ?? null]));
  }

  /** Ends the job in error for a limit: every iteration in flight ends in error, and nothing waits any more. */
  abandon(message: string, task?: string): void {
    const keys = [...new Set(Object.values(this.job._runs).map((run) => run.key))];
    for (const [iteration, run] of Object.entries(this.job._runs)) {
      this.job.tasks[run.key]!.status = 'error';
      this.writeTask(iteration, this.taskDoc(iteration, 'error', run, { finishState: 'error', outgoing: {}, error: message }));
    }
    this.job._runs = runTable({});
    this.job._waiting = [];
    this.fail(keys[0] ?? task ?? START, message);
  }

  /** Cancels the job and every iteration in flight. */
  cancel(): string[] {
    this.touch();
    const iterations = Object.keys(this.job._runs);
    for (const iteration of iterations) {
      const run = this.job._runs[iteration]!;
      this.job.tasks[run.key]!.status = 'canceled';
      this.writeTask(iteration, this.taskDoc(iteration, 'canceled', run));
    }
    this.job._runs = runTable({});
    this.job._waiting = [];
    this.job.status = 'canceled';
    this.job.metrics.end_time = this.now();
    return iterations;
  }

  private writeTask(iteration: string, doc: Record<string, unknown>): void {
    const at = this.inserted.get(iteration);
    if (at === undefined) this.writes.push({ op: 'replace', collection: 'tasks', doc });
    else this.writes[at] = { op: 'insert', collection: 'tasks', doc };
  }

  /** Takes the claimed runs out of the to-do list of this change (they are run here, not after commit). */
  takeClaim(iteration: string): void {
    const i = this.claimed.findIndex((c) => c.iteration === iteration);
    if (i >= 0) this.claimed.splice(i, 1);
  }

  private updateProgress(): void {
    let all = 0;
    let done = 0;
    for (const key of Object.keys(this.job.tasks)) {
      if (key === START || key === END) continue;
      all += 1;
      if (this.job.tasks[key]!.status === 'complete') done += 1;
    }
    this.job.metrics.progress = all === 0 ? 1 : Math.round((done / all) * 1000) / 1000;
  }

  /** The task document of one iteration, built from the job (so nothing needs reading back). */
  taskDoc(iteration: string, status: TaskStatus, run = this.job._runs[iteration], outcome?: TaskOutcome): Record<string, unknown> {
    const key = run!.key;
    const entry = this.job.tasks[key]!;
    return {
      _id: iteration,
      name: entry.name,
      summary: entry.summary ?? entry.name,
      description: entry.description ?? '',
      location: entry.location ?? 'Application',
      app: entry.app ?? 'WorkFlowEngine',
      type: entry.type ?? 'automatic',
      view: entry.type === 'manual' ? (entry['view'] ?? '/workflow_engine/task/ViewData') : null,
      status,
      variables: { incoming: run!.incoming, outgoing: outcome?.outgoing ?? {}, error: outcome?.error === undefined ? '' : errorMessage(outcome.error), decorators: entry.variables?.decorators ?? [] },
      job: { _id: this.job._id, task: key, name: this.job.name, description: this.job.description, ancestors: this.job.ancestors },
      groups: this.job.groups,
      last_updated: this.isoNow(),
      metrics: {
        user: this.job.metrics.user,
        owner: run!.owner,
        start_time: run!.start,
        ...(status === 'running' ? {} : { end_time: this.now(), run_time: this.now() - run!.start }),
        ...(outcome ? { finish_state: outcome.finishState } : {}),
      },
    };
  }
}

/**
 * The runs in flight by iteration id, in an object without a prototype, which
 * V8 keeps as a table from the start. In a plain object each new id was a
 * hidden class of its own, made when the run started and dropped when it
 * ended: about 2 µs a task run. It serialises as a plain object does.
 */
function runTable(runs: Readonly<Record<string, Run>>): Record<string, Run> {
  const table = Object.create(null) as Record<string, Run>;
  // Without a prototype, even a key `__proto__` is set as data.
  for (const key of Object.keys(runs)) table[key] = runs[key]!;
  return table;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return JSON.stringify(error ?? 'error');
}
