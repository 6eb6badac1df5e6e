/**
 * Workflows and jobs for engine tests, through the real HTTP interface.
 */
import assert from 'node:assert/strict';
import type { JsonResponse, RunningCore } from './core.ts';
import { eventually } from './wait.ts';

type Task = Record<string, unknown>;

/** A workflow from a compact description: tasks by key, and `[from, to, state]` transitions. */
export function workflow(name: string, tasks: Record<string, Task>, transitions: Array<[string, string, string?]>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const all: Record<string, Task> = { workflow_start: { name: 'workflow_start', groups: [] }, workflow_end: { name: 'workflow_end', groups: [] }, ...tasks };
  const t: Record<string, Record<string, { type: string; state: string }>> = {};
  for (const key of Object.keys(all)) t[key] = {};
  for (const [from, to, state] of transitions) t[from]![to] = { type: 'standard', state: state ?? 'success' };
  return { name, description: `${name} (test)`, tasks: all, transitions: t, ...extra };
}

export const newVariable = (name: string, value: unknown): Task => ({ name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { name, value }, outgoing: { value: null } } });
export const manual = (outgoing: Record<string, string> = {}): Task => ({ name: 'ViewData', app: 'WorkFlowEngine', type: 'manual', variables: { incoming: {}, outgoing } });
/** The engine's delay task (a task for a workflow, not a wait in the test). */
export const delayTask = (seconds: number): Task => ({ name: 'delay', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { time: seconds }, outgoing: { time_in_milliseconds: null } } });
/** A task that always ends in error: makeData asked for JSON it cannot read. */
export const failing = (): Task => ({ name: 'makeData', app: 'WorkFlowEngine', type: 'automatic', variables: { incoming: { input: 'not json', outputType: 'json', variables: {} }, outgoing: { output: null } } });

const json = { 'content-type': 'application/json' };

export async function createWorkflow(core: RunningCore, wf: Record<string, unknown>): Promise<void> {
  const res = await core.request('/automation-studio/automations', { method: 'POST', headers: json, body: JSON.stringify({ automation: wf }) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

export function post(core: RunningCore, path: string, body?: unknown, token?: string): Promise<JsonResponse> {
  return core.request(`/operations-manager${path}`, { method: 'POST', headers: json, ...(body === undefined ? {} : { body: JSON.stringify(body) }), ...(token ? { token } : {}) });
}

export async function startJob(core: RunningCore, workflowName: string, variables: Record<string, unknown> = {}, token?: string): Promise<string> {
  const res = await post(core, '/jobs/start', { workflow: workflowName, options: { variables } }, token);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: { _id: string } }).data._id;
}

export interface JobView {
  status: string;
  tasks: Record<string, { status: string; iterations: string[]; finish_state?: string }>;
  variables: Record<string, unknown>;
  metrics: { progress: number; end_time?: number };
  error: Array<{ task: string; message: unknown }>;
  watchers: string[];
  groups: string[];
}

/** The job once the engine has nothing left in flight. */
export async function job(core: RunningCore, id: string): Promise<JobView> {
  await core.core.engine.idle();
  const res = await core.request(`/operations-manager/jobs/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: JobView }).data;
}

/** The running iteration (task document id) of a task. */
export async function runningTask(core: RunningCore, jobId: string, key: string): Promise<string> {
  const res = await core.request(`/operations-manager/tasks?equals[job._id]=${jobId}&equals[job.task]=${key}&equals[status]=running`);
  const data = (res.body as { data: Array<{ _id: string }> }).data;
  assert.equal(data.length, 1, `task ${key} of ${jobId} should be running`);
  return data[0]!._id;
}

/** Polls until `check` answers non-null (test/helpers/wait.ts `eventually`, kept under its old name). */
export function waitFor<T>(check: () => Promise<T | null>, ms = 5000): Promise<T> {
  return eventually(check, { timeoutMs: ms, everyMs: 20 });
}
