/**
 * Deterministic generator of realistic jobs, task documents, accounts,
 * groups and workflows. Jobs come in batches so a million of them never sit
 * in memory at once; job `i` depends only on (seed, i, jobs, now), so the
 * output is the same whatever the batch size.
 */
import type { Doc } from '../../../kernel/index.ts';
import { hashUnit } from './random.ts';
import { generateJob } from './job.ts';

export { generateDirectory, SEED_ACCOUNTS, SEED_GROUPS } from './directory.ts';
export type { Directory, SeedAccount, SeedGroup } from './directory.ts';
export { generateJob } from './job.ts';
export type { GeneratedJob, JobSpec } from './job.ts';
export { JOB_STATUSES, STATUS_WEIGHTS } from './plan.ts';
export type { JobStatus } from '../jobs/document.ts';
export { WORKFLOWS } from './workflows.ts';

export interface GenerateOptions {
  /** Number of jobs. */
  readonly jobs: number;
  readonly seed: number;
  /** Jobs per yielded batch. */
  readonly batchSize: number;
  /**
   * Share of jobs (0..1) that also get task documents; `true` is all, `false`
   * none. Task documents are most of the volume, so large runs keep this low.
   */
  readonly tasksFraction: number | boolean;
  /** Reference time (epoch ms): finished jobs start within the year before it. Defaults to now. */
  readonly now?: number;
}

export interface JobBatch {
  readonly jobs: Doc[];
  readonly tasks: Doc[];
}

function fractionOf(value: number | boolean): number {
  if (value === true) return 1;
  if (value === false) return 0;
  if (!(value >= 0 && value <= 1)) throw new RangeError('tasksFraction must be between 0 and 1');
  return value;
}

/** Whether job `index` gets task documents; hashed so the choice draws nothing from the job's own stream. */
export function hasTaskDocs(seed: number, index: number, fraction: number): boolean {
  return fraction >= 1 || (fraction > 0 && hashUnit(seed, index, 0x7a5c) < fraction);
}

export function* generateJobBatches(opts: GenerateOptions): Generator<JobBatch, void, undefined> {
  if (!Number.isSafeInteger(opts.jobs) || opts.jobs < 0) throw new RangeError('jobs must be a non-negative integer');
  if (!Number.isSafeInteger(opts.batchSize) || opts.batchSize < 1) throw new RangeError('batchSize must be a positive integer');
  const fraction = fractionOf(opts.tasksFraction);
  const now = opts.now ?? Date.now();
  for (let start = 0; start < opts.jobs; start += opts.batchSize) {
    const end = Math.min(start + opts.batchSize, opts.jobs);
    const jobs: Doc[] = [];
    const tasks: Doc[] = [];
    for (let index = start; index < end; index++) {
      const withTasks = hasTaskDocs(opts.seed, index, fraction);
      const g = generateJob({ seed: opts.seed, index, count: opts.jobs, now, withTasks });
      jobs.push(g.job);
      for (const t of g.tasks) tasks.push(t);
    }
    yield { jobs, tasks };
  }
}
