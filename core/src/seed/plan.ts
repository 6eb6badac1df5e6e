/**
 * What happened in one job: its status, which tasks ran, with which outcome,
 * and when. The documents are written from this plan, so the job document,
 * its task entries and its task documents cannot disagree.
 */
import type { Rng } from './random.ts';
import { cumulativeOf } from './random.ts';
import { SEED_ACCOUNTS } from './directory.ts';
import type { WorkflowDef, WorkflowStep } from './workflows.ts';
import type { JobStatus, TaskStatus } from '../jobs/document.ts';

/** Intended share of each status, in percent; every status of the lifecycle has one, or this does not compile. */
const STATUS_SHARES: Readonly<Record<JobStatus, number>> = { complete: 70, error: 10, canceled: 7, running: 7, paused: 3, incomplete: 3 };

/** The statuses in the order the seed draws them, and their shares. */
export const JOB_STATUSES = Object.keys(STATUS_SHARES) as readonly JobStatus[];
export const STATUS_WEIGHTS: readonly number[] = JOB_STATUSES.map((status) => STATUS_SHARES[status]);
const STATUS_CUM = cumulativeOf(STATUS_WEIGHTS);

export interface Iteration {
  readonly status: TaskStatus;
  /** Epoch ms. */
  readonly start: number;
  readonly end: number | null;
  readonly finishState: 'success' | 'error' | null;
  readonly owner: string | null;
  readonly claimTime: number | null;
  readonly error: string | null;
}

export interface StepRun {
  readonly step: WorkflowStep;
  readonly status: TaskStatus;
  readonly iterations: readonly Iteration[];
}

export interface JobPlan {
  readonly status: JobStatus;
  readonly runs: readonly StepRun[];
  readonly start: number;
  /** Absent while the job is running or paused. */
  readonly end: number | null;
  /** Time of the last change to the job. */
  readonly lastEvent: number;
  readonly progress: number;
}

const YEAR = 365 * 86_400_000;
const HOUR = 3_600_000;

/** Times are first laid out from 0 and shifted into place once the job's length is known. */
interface Draft {
  step: WorkflowStep;
  status: TaskStatus;
  iterations: Array<Omit<Iteration, 'start' | 'end' | 'claimTime'> & { start: number; end: number | null; claimTime: number | null }>;
}

function approver(r: Rng): string {
  // The automation service account never approves anything.
  return SEED_ACCOUNTS[r.int(0, SEED_ACCOUNTS.length - 2)]!._id;
}

/**
 * `position` (0..1) is the job's place in the run: finished jobs start in
 * that order over the year before `now`, as a real history was inserted, so
 * time-keyed indexes (and ObjectId-shaped ids) grow at their end.
 */
export function planJob(r: Rng, wf: WorkflowDef, now: number, position: number, errorText: (r: Rng) => string): JobPlan {
  const status = r.weighted(JOB_STATUSES, STATUS_CUM);
  const n = wf.steps.length;
  const manual = wf.steps.findIndex((st) => st.type === 'manual');
  // Index of the task the job stopped at (n when it reached the end).
  let stop = n;
  if (status === 'error' || status === 'canceled') stop = r.int(0, n - 1);
  else if (status === 'running') stop = manual >= 0 && r.chance(0.6) ? manual : r.int(0, n - 1);
  else if (status === 'paused' || status === 'incomplete') stop = r.int(1, n - 1);
  const retried = status === 'complete' && r.chance(0.04) ? r.int(0, n - 1) : -1;

  let t = 0;
  const drafts: Draft[] = [];
  for (let i = 0; i < n; i++) {
    const step = wf.steps[i]!;
    const d: Draft = { step, status: 'incomplete', iterations: [] };
    drafts.push(d);
    if (i > stop || (i === stop && (status === 'paused' || status === 'incomplete'))) continue;
    if (i === retried) {
      const start = t + r.int(5, 400);
      t = start + r.skewed(step.runMs[0], step.runMs[1]);
      d.iterations.push({ status: 'error', start, end: t, finishState: 'error', owner: null, claimTime: null, error: errorText(r) });
      t += r.int(60_000, 4 * HOUR); // someone looked at the error and retried
    }
    const start = t + r.int(5, 400);
    const run = r.skewed(step.runMs[0], step.runMs[1]);
    const isManual = step.type === 'manual';
    const claimed = isManual && (i < stop || status !== 'running' || r.chance(0.5));
    const owner = claimed ? approver(r) : null;
    const claimTime = claimed ? start + Math.floor(run * r.next() * 0.8) : null;
    if (i < stop) {
      t = start + run;
      d.status = 'complete';
      d.iterations.push({ status: 'complete', start, end: t, finishState: 'success', owner, claimTime, error: null });
    } else if (status === 'error') {
      t = start + Math.min(run, r.int(200, 30_000));
      d.status = 'error';
      d.iterations.push({ status: 'error', start, end: t, finishState: 'error', owner, claimTime: claimTime === null ? null : Math.min(claimTime, t), error: errorText(r) });
    } else if (status === 'canceled') {
      t = start + Math.floor(run * r.next());
      d.status = 'canceled';
      d.iterations.push({ status: 'canceled', start, end: t, finishState: null, owner, claimTime: claimTime === null ? null : Math.min(claimTime, t), error: null });
    } else {
      // running: started, not finished
      t = claimTime ?? start;
      d.status = 'running';
      d.iterations.push({ status: 'running', start, end: null, finishState: null, owner, claimTime, error: null });
    }
  }
  const finished = status !== 'running' && status !== 'paused';
  const endRel = status === 'complete' ? t + r.int(5, 200) : finished ? t + r.int(1_000, 120_000) : null;
  const lastRel = endRel ?? t;

  // Live jobs are recent; finished ones are spread over the year before `now`.
  let start: number;
  if (finished) {
    start = Math.min(now - Math.floor((1 - position) * YEAR) - r.int(0, 60_000), now - lastRel - 1_000);
  } else {
    const idle = status === 'paused' ? r.skewed(10 * 60_000, 5 * 24 * HOUR) : drafts[stop]?.step.type === 'manual' ? r.skewed(60_000, 3 * 24 * HOUR) : r.int(1_000, 60_000);
    start = now - idle - lastRel;
  }

  const runs: StepRun[] = drafts.map((d) => ({
    step: d.step,
    status: d.status,
    iterations: d.iterations.map((it) => ({
      ...it,
      start: it.start + start,
      end: it.end === null ? null : it.end + start,
      claimTime: it.claimTime === null ? null : it.claimTime + start,
    })),
  }));
  const done = runs.filter((x) => x.status === 'complete').length;
  return {
    status,
    runs,
    start,
    end: endRel === null ? null : endRel + start,
    lastEvent: lastRel + start,
    progress: status === 'complete' ? 1 : Math.round((done / n) * 1000) / 1000,
  };
}
