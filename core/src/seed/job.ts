/**
 * Writes one job document, and optionally its task documents, from a plan.
 * Shapes follow the platform's stored documents;
 * fields the workflow document already holds (description, location,
 * canvas positions, display names, actor) are left out of the job's task map
 * to keep jobs near 2-3 KB.
 */
import type { Doc } from '../../../kernel/index.ts';
import { Rng, cumulativeOf, hash32, hex32 } from './random.ts';
import { SEED_ACCOUNTS, SEED_GROUPS } from './directory.ts';
import type { SeedAccount } from './directory.ts';
import { planJob } from './plan.ts';
import type { Iteration, JobPlan, StepRun } from './plan.ts';
import type { JobVars } from './steps.ts';
import { END, START, WORKFLOWS, transitionsOf } from './workflows.ts';
import type { Transitions, WorkflowDef } from './workflows.ts';
import { taskError } from './vocabulary.ts';

const WORKFLOW_CUM = cumulativeOf(WORKFLOWS.map((w) => w.weight));
// Transitions and task variable templates are shared by every job of a
// workflow; frozen so that changing one job's copy cannot change them all.
const TRANSITIONS: ReadonlyMap<WorkflowDef, Transitions> = new Map(WORKFLOWS.map((w) => [w, deepFreeze(transitionsOf(w))]));
for (const w of WORKFLOWS) {
  for (const st of w.steps) {
    deepFreeze(st.incoming);
    deepFreeze(st.outgoing);
  }
}
const SCHEDULED = new Set(['Device Backup', 'Compliance Audit']);
const SERVICE_ACCOUNT = SEED_ACCOUNTS.find((a) => a.username === 'svc-automation')!;
const PROJECTS = ['5f2b9c1e8a4d3b0012c4e7a1', '61a7e3d94c2b8f0019d5a3c6', '64c1f08b7e9a2d00137b6e55'];
const GROUP_NAMES = SEED_GROUPS.map((g) => g.name);

function deepFreeze<T extends object>(o: T): T {
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null) deepFreeze(v as object);
  return Object.freeze(o);
}

const iso = (ms: number): string => new Date(ms).toISOString();

export interface GeneratedJob {
  readonly job: Doc;
  readonly tasks: Doc[];
}

/** An ObjectId-shaped id: creation second, random bytes, and a counter that keeps a run's ids unique. */
function jobId(r: Rng, createdMs: number, counter: number): string {
  return hex32(Math.floor(createdMs / 1000)) + hex32(r.u32()) + hex32(r.u32()).slice(0, 2) + hex32(counter & 0xffffff).slice(2);
}

const GROUP_ID = new Map(SEED_GROUPS.map((g) => [g.name, g._id]));

/** Jobs name their groups by group id, as group membership (`memberOf.groupId`) does. */
function pickGroups(r: Rng, user: SeedAccount): string[] {
  const x = r.next();
  if (x < 0.15) return [];
  const first = r.chance(0.8) ? r.pick(user.groups) : r.pick(GROUP_NAMES);
  if (x < 0.75) return [GROUP_ID.get(first)!];
  const second = r.pick(GROUP_NAMES);
  return (second === first ? [first] : [first, second]).map((name) => GROUP_ID.get(name)!);
}

function pickWatchers(r: Rng, user: SeedAccount): string[] {
  const x = r.next();
  if (x < 0.1) return [];
  if (x < 0.85) return [user._id];
  const other = r.pick(SEED_ACCOUNTS)._id;
  return other === user._id ? [user._id] : [user._id, other];
}

/** Incoming values as the task saw them: direct `$var.job.NAME` references resolved. */
function resolve(incoming: Readonly<Record<string, unknown>>, vars: JobVars): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(incoming)) {
    out[k] = typeof v === 'string' && v.startsWith('$var.job.') ? (vars[v.slice(9)] ?? null) : v;
  }
  return out;
}

function taskEntry(run: StepRun, ids: readonly string[]): Record<string, unknown> {
  const st = run.step;
  const entry: Record<string, unknown> = {
    name: st.name,
    summary: st.summary,
    app: st.app,
    type: st.type,
    variables: { incoming: st.incoming, outgoing: st.outgoing },
    status: run.status,
    iterations: ids,
  };
  const last = run.iterations[run.iterations.length - 1];
  if (last) {
    if (last.finishState) entry['finish_state'] = last.finishState;
    if (last.owner !== null) entry['owner'] = last.owner;
    // Who ran it and for how long is on the task documents; the job keeps only the times.
    entry['metrics'] = last.end === null ? { start_time: run.iterations[0]!.start } : { start_time: run.iterations[0]!.start, end_time: last.end };
  }
  return entry;
}

interface JobHead {
  readonly _id: string;
  readonly name: string;
  readonly description: string;
  readonly ancestors: readonly string[];
  readonly groups: readonly string[];
  readonly user: string;
  readonly vars: JobVars;
}

function taskDoc(r: Rng, head: JobHead, run: StepRun, it: Iteration): Doc {
  const st = run.step;
  const metrics: Record<string, unknown> = { user: it.owner ?? head.user, start_time: it.start };
  if (it.owner !== null) {
    metrics['owner'] = it.owner;
    metrics['claim_time'] = it.claimTime;
  }
  if (it.end !== null) {
    metrics['end_time'] = it.end;
    metrics['run_time'] = it.end - it.start;
  }
  if (it.finishState !== null) metrics['finish_state'] = it.finishState;
  return {
    _id: r.uuid(),
    name: st.name,
    summary: st.summary,
    description: st.description,
    location: st.location,
    app: st.app,
    type: st.type,
    view: st.view,
    status: it.status,
    variables: {
      incoming: resolve(st.incoming, head.vars),
      outgoing: it.status === 'complete' ? st.result(head.vars) : {},
      error: it.error ?? '',
      decorators: [],
    },
    job: { _id: head._id, task: st.key, name: head.name, description: head.description, ancestors: [...head.ancestors] },
    groups: [...head.groups],
    last_updated: iso(it.end ?? it.claimTime ?? it.start),
    encodingVersion: 1,
    metrics,
    deprecated: false,
    scheduled: false,
  };
}

function jobError(r: Rng, plan: JobPlan): Array<Record<string, unknown>> | undefined {
  if (plan.status !== 'error') return undefined;
  const run = plan.runs.find((x) => x.status === 'error')!;
  const it = run.iterations[run.iterations.length - 1]!;
  const text = it.error ?? 'Task failed';
  // Adapter errors arrive wrapped in the platform's error envelope.
  const message = run.step.location === 'Adapter' && r.chance(0.3)
    ? { code: 500, message: { apiVersion: '1', method: `${run.step.app}.${run.step.name}`, error: { code: 500, message: text, errors: null } } }
    : text;
  return [{ task: run.step.key, message, timestamp: it.end }];
}

function jobOutput(plan: JobPlan, vars: JobVars): Record<string, unknown> | null {
  if (plan.status !== 'complete') return null;
  return { result: 'success', device: vars['device'] ?? null, ticket: vars['ticket'] ?? null };
}

export interface JobSpec {
  readonly seed: number;
  /** The job's number in the run, from 0. */
  readonly index: number;
  /** Jobs in the run; with `index` it places the job in time. */
  readonly count: number;
  /** Reference time, epoch ms. */
  readonly now: number;
  /** Also write task documents and fill the iterations that point at them. */
  readonly withTasks: boolean;
}

/** The same spec always gives the same job; `withTasks` changes nothing but the task documents and iterations. */
export function generateJob(spec: JobSpec): GeneratedJob {
  const { seed, index, now, withTasks } = spec;
  const r = new Rng(seed, index);
  const wf = r.weighted(WORKFLOWS, WORKFLOW_CUM);
  const vars = wf.inputs(r);
  const plan = planJob(r, wf, now, (index + 0.5) / Math.max(spec.count, 1), (rr) => taskError(rr, String(vars['device'])));
  const description = wf.describe(r, vars);
  const user = SCHEDULED.has(wf.name) && r.chance(0.7) ? SERVICE_ACCOUNT : r.pick(SEED_ACCOUNTS);
  const created = plan.start - r.int(5, 250);
  const _id = jobId(r, created, hash32(seed) + index);
  const name = r.chance(0.12) ? `@${r.pick(PROJECTS)}: ${wf.name}` : wf.name;
  const head: JobHead = { _id, name, description, ancestors: [_id], groups: pickGroups(r, user), user: user._id, vars };

  const tasks: Doc[] = [];
  // Task ids come from their own stream, so whether a job gets task documents changes nothing else in it.
  const taskRng = withTasks ? new Rng(seed, index, 0x7a5c) : null;
  const entries: Record<string, unknown> = {
    [START]: { name: START, groups: [], status: 'complete', metrics: { start_time: plan.start, user: user._id, finish_state: 'success' }, iterations: [] },
  };
  for (const run of plan.runs) {
    const ids: string[] = [];
    if (taskRng) {
      for (const it of run.iterations) {
        const doc = taskDoc(taskRng, head, run, it);
        ids.push(doc['_id'] as string);
        tasks.push(doc);
      }
    }
    entries[run.step.key] = taskEntry(run, ids);
  }
  entries[END] = plan.status === 'complete'
    ? { name: END, groups: [], status: 'complete', metrics: { end_time: plan.end, run_time: plan.end! - plan.start }, iterations: [] }
    : { name: END, groups: [], status: 'incomplete', iterations: [] };

  const metrics: Record<string, unknown> = { start_time: plan.start, user: user._id, progress: plan.progress };
  if (plan.end !== null) metrics['end_time'] = plan.end;
  const job: Doc = {
    _id,
    name,
    description,
    type: 'automation',
    tasks: entries,
    transitions: TRANSITIONS.get(wf)!,
    status: plan.status,
    variables: { _id, initiator: user.username, ...vars },
    watchers: pickWatchers(r, user),
    groups: head.groups,
    ancestors: head.ancestors,
    metrics,
    created: iso(created),
    created_by: user._id,
    last_updated: iso(plan.lastEvent),
    last_updated_by: user._id,
    error: jobError(r, plan) ?? [],
    output: jobOutput(plan, vars),
  };
  return { job, tasks };
}
