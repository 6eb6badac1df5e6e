/**
 * The job document: its type, the fields that are the engine's own
 * bookkeeping, the view every answer shows, and the defaults older stored
 * documents lack. The engine changes it (engine/working.ts); the routes, the
 * triggers, the catalogs and the seed read and show it through this module.
 */
import { jobs as jobType } from '../../../kernel/index.ts';
import type { Doc } from '../../../kernel/index.ts';
import type { PrincipalRef } from '../auth/principal.ts';
import { withFields } from './copy.ts';
import type { Transitions } from '../engine/graph.ts';
import type { JobStatus, TaskStatus } from '../engine/lifecycle.ts';
import type { WorkflowTask } from '../engine/types.ts';

export type { JobStatus, TaskStatus };

/** An iteration in flight: claimed (the task is running) and not finished. */
export interface Run {
  readonly key: string;
  readonly incoming: Record<string, unknown>;
  readonly start: number;
  owner: string | null;
}

export interface TaskEntry extends WorkflowTask {
  status: TaskStatus;
  /** The latest iterations (task document ids), at most `maxIterationsListed`. */
  iterations: string[];
  /** Earlier iterations no longer listed in `iterations` (their task documents remain); absent while none are. */
  iterationsOmitted?: number;
  metrics: Record<string, unknown>;
  finish_state?: string;
}

export interface JobDoc {
  _id: string;
  name: string;
  description: string;
  status: JobStatus;
  tasks: Record<string, TaskEntry>;
  transitions: Transitions;
  variables: Record<string, unknown>;
  groups: string[];
  ancestors: string[];
  watchers: string[];
  metrics: { start_time: number; end_time?: number; user: string; progress: number };
  error: Array<{ task: string; message: unknown; timestamp: number }>;
  output?: unknown;
  last_updated: string;
  last_updated_by: string;
  _rev: number;
  _runs: Record<string, Run>;
  _waiting: string[];
  _outputs: Record<string, Record<string, unknown>>;
  _outputKeys: string[] | null;
  /** True while iterations are claimed: what a restart looks for. */
  _inflight?: boolean;
  /** Task runs started in this job's life, counted against `maxTaskRunsPerJob`. */
  _taskRuns: number;
  /** On a root job: the jobs of its tree started so far (itself included), counted against `maxJobsPerTree`. */
  _treeJobs?: number;
  /** Who the job acts for (engine/new-job.ts); jobs stored before it existed act for `metrics.user`. */
  _principal?: PrincipalRef;
  [key: string]: unknown;
}

/**
 * Fields of a job no answer shows: the engine's own bookkeeping. Declared in
 * the kernel's search registry (`jobs.internal`), which the gateway shares,
 * so a search can never filter, sort or project on them either.
 */
export const INTERNAL_JOB_FIELDS: readonly string[] = [...jobType.internal];

/** What a start, run or order answer leaves out of a job. */
const HIDDEN: ReadonlySet<string> = new Set([...INTERNAL_JOB_FIELDS, 'output']);

/**
 * A job as the start, run and order answers show it: without the engine's
 * fields, and without `output`, which is read back on its own
 * (`dereference=output`, docs/lifecycle.md).
 */
export function shownJob(job: Readonly<JobDoc> | Readonly<Doc>): Doc {
  const shown: Doc = { ...job };
  for (const field of HIDDEN) delete shown[field];
  return shown;
}

/** A job as JSON text: what the store keeps, and what `shownJob` of it would be. */
export interface JobJson {
  /** `JSON.stringify(job)`, to the byte. */
  readonly stored: string;
  /** `JSON.stringify(shownJob(job))`, to the byte. */
  readonly shown: string;
}

/**
 * Both texts from one pass over the job's fields, each field serialised
 * once: a start answers the job it stored, and copying it without the
 * engine's fields and serialising it again for the answer cost a start
 * about 12 µs more than this (BENCHMARKS.md, "The engine at a thousand jobs
 * a second?"). Fields JSON leaves out (undefined, functions) are left out of both.
 */
export function jobJson(job: Readonly<JobDoc>): JobJson {
  let stored = '';
  let shown = '';
  for (const key of Object.keys(job)) {
    const value = JSON.stringify(job[key]);
    if (value === undefined) continue;
    const field = `${JSON.stringify(key)}:${value}`;
    stored = stored === '' ? field : `${stored},${field}`;
    if (!HIDDEN.has(key)) shown = shown === '' ? field : `${shown},${field}`;
  }
  return { stored: `{${stored}}`, shown: `{${shown}}` };
}

/**
 * Fills what documents written before the engine (seeded or imported jobs)
 * lack. Their task runs are counted from what they list, so an old runaway
 * job meets the run limit at its next start.
 */
export function normalizeJob(stored: JobDoc): JobDoc {
  const runs = stored._taskRuns ?? Object.values(stored.tasks ?? {}).reduce((n, t) => n + (t.iterations?.length ?? 0) + (t.iterationsOmitted ?? 0), 0);
  return withFields(stored, { _taskRuns: runs, _runs: stored._runs ?? {}, _waiting: stored._waiting ?? [], _outputs: stored._outputs ?? {}, _outputKeys: stored._outputKeys ?? null, error: stored.error ?? [], watchers: stored.watchers ?? [], groups: stored.groups ?? [] });
}

/** Who a job acts for; a job stored before principals were recorded acts for the account that started it. */
export function principalOfJob(job: JobDoc): PrincipalRef {
  return job._principal ?? { kind: 'account', id: job.metrics.user };
}
