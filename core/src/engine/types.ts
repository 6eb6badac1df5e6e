/**
 * Shapes the workflow engine works with, as the real platform writes them
 * (the real platform's workflow document, as `docs/lifecycle.md` describes it), and the one small interface every
 * task handler implements.
 */
import type { Permission } from './authority.ts';

/** Finish states a task can end with; each picks the transitions to follow. */
export type FinishState = 'success' | 'failure' | 'error' | 'loop';

export type TaskType = 'automatic' | 'manual' | 'operation';

/** One task of a workflow, keyed by its id (`a1b2`) in `workflow.tasks`. */
export interface WorkflowTask {
  name: string;
  canvasName?: string;
  summary?: string;
  description?: string;
  location?: string;
  locationType?: string | null;
  app?: string;
  type?: TaskType;
  displayName?: string;
  variables?: { incoming?: Record<string, unknown>; outgoing?: Record<string, unknown>; error?: string; decorators?: unknown[] };
  groups?: string[];
  actor?: string;
  scheduled?: boolean;
  nodeLocation?: { x: number; y: number };
  [key: string]: unknown;
}

export interface Transition {
  type: 'standard' | 'revert';
  state: FinishState;
}

export interface StudioWorkflow {
  _id: string;
  name: string;
  description?: string;
  type?: string;
  tasks: Record<string, WorkflowTask>;
  /** `{fromTask: {toTask: {type, state}}}` */
  transitions: Record<string, Record<string, Transition>>;
  groups?: string[];
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  [key: string]: unknown;
}

export const START = 'workflow_start';
export const END = 'workflow_end';

/** A `$var` reference: `$var.job.NAME` or `$var.<taskId>.NAME`. */
export const VAR_REFERENCE = /^\$var\.(job|[0-9a-f]{1,4})\.([^.\s]+)$/;

/** What a task handler sees: its resolved incoming values and a read-only view of the job. */
export interface TaskContext {
  readonly jobId: string;
  readonly taskKey: string;
  readonly task: Readonly<WorkflowTask>;
  /** Incoming values with `$var` references already resolved. */
  readonly incoming: Readonly<Record<string, unknown>>;
  /** The job's variables as they are when the task starts. */
  readonly jobVariables: Readonly<Record<string, unknown>>;
  /** Outgoing values of earlier tasks, by task id (their latest iteration). */
  readonly taskOutputs: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Aborted when the job is canceled or the process stops. */
  readonly signal: AbortSignal;
  /** Engine services some handlers need (child jobs, transformations, the relay). */
  readonly services: TaskServices;
}

export interface ChildJobRequest {
  readonly workflow: string;
  readonly variables: Record<string, unknown>;
  readonly description?: string;
}

export interface ChildJobResult {
  readonly _id: string;
  readonly name: string;
  readonly status: string;
  readonly variables: Record<string, unknown>;
  readonly output: unknown;
  readonly error: unknown;
}

export interface TaskServices {
  /** Starts child jobs (in parallel, or one after another) and resolves when all have ended; none starts once the task is aborted. */
  runChildJobs(requests: readonly ChildJobRequest[], mode: 'parallel' | 'sequential'): Promise<ChildJobResult[]>;
  /** Runs a transformation by id; rejects when none exists or it fails. */
  runTransformation(id: string, incoming: Record<string, unknown>, options: { extractOutput?: boolean }): Promise<unknown>;
  /** Relays a call to an orchestrator adapter; rejects when the relay is not available. */
  relay(kind: 'restAction' | 'restQuery', adapterId: string, body: Record<string, unknown>): Promise<unknown>;
}

/** What a task run ended with. */
export interface TaskOutcome {
  readonly finishState: FinishState;
  /** Values named by the task's outgoing variables (written to `$var.job.*` targets by the engine). */
  readonly outgoing: Record<string, unknown>;
  /** Job variables the task changes directly (push, pop, shift). */
  readonly setJobVariables?: Record<string, unknown>;
  /** Why the task ended in `error`; becomes the job's error entry when no error transition exists. */
  readonly error?: unknown;
  /** Set by the engine only, for a limit (a LimitError): the job goes to `error` whatever transitions exist. */
  readonly fatal?: boolean;
}

/**
 * A built-in task. Adding one is one file in `engine/tasks/` exporting a
 * TaskHandler and one line in `engine/tasks/index.ts`.
 */
export interface TaskHandler {
  /** The task's method name in workflows, e.g. `newVariable`. */
  readonly name: string;
  /** The application it belongs to, e.g. `WorkFlowEngine`. */
  readonly app: string;
  /** Task type the platform gives it (`operation` for the job-variable utilities, else `automatic`). */
  readonly type: TaskType;
  /** Incoming variable names it reads, for validation on save. */
  readonly incoming: readonly string[];
  /** Outgoing variable names it writes. */
  readonly outgoing: readonly string[];
  /**
   * Runs synchronously and has no effect outside its outcome. The engine may
   * then run it inside the very change that claims it: if that change is not
   * committed, nothing happened. Tasks with effects (I/O, timers, child jobs)
   * leave it unset and run only after their claim is committed.
   */
  readonly pure?: boolean;
  /**
   * Whether it acts outside the store (an orchestrator, a gateway, a
   * transformation, another job), and then the route method whose roles its
   * job's principal must hold when it runs (docs/auth.md). Required, so no
   * task can reach out without saying so.
   */
  readonly reach: TaskReach;
  run(ctx: TaskContext): TaskOutcome | Promise<TaskOutcome>;
}

/** A task's reach: only its outcome, or outside the store with the permission that needs. */
export type TaskReach = { readonly outside: false } | { readonly outside: true; readonly needs: Permission };

/** The reach of a task whose only effect is its outcome. */
export const INSIDE_STORE: TaskReach = { outside: false };

/** Thrown by a handler for bad input; the task ends in `error` with this message. */
export class TaskError extends Error {}

/** Thrown when a job would exceed one of the engine's limits; its job goes to `error`, error transitions notwithstanding. */
export class LimitError extends Error {}
