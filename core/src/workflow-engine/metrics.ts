/**
 * The workflow engine's aggregate metrics, in the platform's shapes as far as
 * public sources show them (docs/real-platform.md names each source and gap):
 *
 * - a job metric per workflow: `{_id, workflow: {name}, jobsComplete,
 *   totalRunTime, metrics}` (itential-mcp's workflow_engine tools read these
 *   keys and filter on `workflow.name`); `totalRunTime` is the sum of the
 *   complete jobs' run times in milliseconds; `metrics` (the platform's SLA
 *   entries) is empty: we keep no SLA targets;
 * - a task metric per task of a workflow: `{_id, global: false, taskId,
 *   taskType, name, app, workflow: {name}, metrics: [{totalSuccesses,
 *   totalErrors}]}` (itential-mcp reads taskId, taskType, name, metrics, app
 *   and workflow, and filters on workflow.name, app and name).
 *
 * The platform keeps these as documents it updates as jobs finish; we count
 * them from the jobs and tasks when asked, for the workflows of one page.
 */
import { and, jobs as jobType, tasks as taskType } from '../../../kernel/index.ts';
import type { Condition, Doc, Store } from '../../../kernel/index.ts';
import { isPlainObject } from '../../../kernel/index.ts';
import { JOBS, TASKS, WORKFLOWS } from '../store/collections.ts';
import { workflows as workflowType } from '../store/doc-types.ts';

export interface JobMetric {
  readonly _id: string;
  readonly workflow: { readonly name: string };
  readonly jobsComplete: number;
  readonly totalRunTime: number;
  readonly metrics: never[];
}

export interface TaskMetric {
  readonly _id: string;
  readonly global: false;
  readonly taskId: string;
  readonly taskType: string;
  readonly name: string;
  readonly app: string;
  readonly workflow: { readonly name: string };
  readonly metrics: { readonly totalSuccesses: number; readonly totalErrors: number }[];
}

/** A task metric before it is counted: what the workflow document says of the task. */
export type TaskEntry = Omit<TaskMetric, 'metrics'>;

const BOUNDARY_TASKS = new Set(['workflow_start', 'workflow_end']);

const eq = (field: string, type: typeof jobType | typeof taskType, value: string): Condition => ({ kind: 'compare', op: 'eq', field: type.fields.get(field)!, value });

/** Every workflow, by name; workflows are a designer's collection, not a job-sized one. */
export async function allWorkflows(store: Store): Promise<Doc[]> {
  const collection = store.collection(WORKFLOWS.name);
  const total = await collection.count(null);
  if (total === 0) return [];
  const sort = [{ field: workflowType.fields.get('name')!, direction: 1 as const }, { field: workflowType.fields.get('_id')!, direction: 1 as const }];
  return (await collection.search({ where: null, sort, skip: 0, limit: total })).docs;
}

export function taskEntries(workflows: readonly Doc[]): TaskEntry[] {
  const entries: TaskEntry[] = [];
  for (const wf of workflows) {
    const name = String(wf['name']);
    const tasks = wf['tasks'];
    if (!isPlainObject(tasks)) continue;
    for (const [taskId, task] of Object.entries(tasks)) {
      if (BOUNDARY_TASKS.has(taskId) || !isPlainObject(task)) continue;
      entries.push({
        _id: `${String(wf['_id'])}:${taskId}`,
        global: false,
        taskId,
        taskType: typeof task['type'] === 'string' ? task['type'] : 'automatic',
        name: typeof task['name'] === 'string' ? task['name'] : taskId,
        app: typeof task['app'] === 'string' ? task['app'] : '',
        workflow: { name },
      });
    }
  }
  return entries;
}

export async function jobMetric(store: Store, wf: Doc): Promise<JobMetric> {
  const name = String(wf['name']);
  const where = and([eq('name', jobType, name), eq('status', jobType, 'complete')]);
  const jobs = store.collection(JOBS.name);
  const jobsComplete = await jobs.count(where);
  let totalRunTime = 0;
  if (jobsComplete > 0) {
    const { docs } = await jobs.search({ where, sort: [{ field: jobType.fields.get('_id')!, direction: 1 }], skip: 0, limit: jobsComplete });
    for (const job of docs) {
      const m = job['metrics'];
      if (isPlainObject(m) && typeof m['start_time'] === 'number' && typeof m['end_time'] === 'number') totalRunTime += Math.max(0, m['end_time'] - m['start_time']);
    }
  }
  return { _id: String(wf['_id']), workflow: { name }, jobsComplete, totalRunTime, metrics: [] };
}

export async function taskMetric(store: Store, entry: TaskEntry): Promise<TaskMetric> {
  const tasks = store.collection(TASKS.name);
  const of = (status: string): Promise<number> => tasks.count(and([eq('job.name', taskType, entry.workflow.name), eq('job.task', taskType, entry.taskId), eq('status', taskType, status)]));
  const [totalSuccesses, totalErrors] = await Promise.all([of('complete'), of('error')]);
  return { ...entry, metrics: [{ totalSuccesses, totalErrors }] };
}
