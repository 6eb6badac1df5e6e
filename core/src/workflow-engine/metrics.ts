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
 * them from the jobs and tasks when asked, for the workflows of one page;
 * the store counts and sums them (docs/real-platform.md).
 */
import { and, jobs as jobType, tasks as taskType, WALK_PAGE_BYTES, yieldToLoop } from '../../../kernel/index.ts';
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

/** Workflows read at a time: what a request holds of the collection, however many workflows there are. */
const WORKFLOW_PAGE = 200;

/**
 * Every workflow, by name then `_id`, handed to `visit` a page at a time: each page starts after the last one's
 * final name and `_id`, so a workflow saved meanwhile is neither read twice nor shifts the others. A request once
 * held every workflow document at once, and designers' workflows can be large.
 */
export async function eachWorkflowPage(store: Store, visit: (workflows: readonly Doc[]) => void): Promise<void> {
  const collection = store.collection(WORKFLOWS.name);
  const name = workflowType.fields.get('name')!;
  const id = workflowType.fields.get('_id')!;
  const sort = [{ field: name, direction: 1 as const }, { field: id, direction: 1 as const }];
  let last: { name: string; id: string } | null = null;
  for (;;) {
    const where: Condition | null = last
      ? and([
          { kind: 'compare', op: 'gte', field: name, value: last.name },
          { kind: 'or', items: [{ kind: 'compare', op: 'gt', field: name, value: last.name }, and([{ kind: 'compare', op: 'eq', field: name, value: last.name }, { kind: 'compare', op: 'gt', field: id, value: last.id }])!] },
        ])
      : null;
    // At most WALK_PAGE_BYTES of workflows at once: a page ends early rather than hold 200 large ones.
    const docs = await collection.findPage({ where, sort, skip: 0, limit: WORKFLOW_PAGE, maxBytes: WALK_PAGE_BYTES, shorten: true });
    if (docs.length === 0) return;
    visit(docs);
    // Between pages the core answers others: the embedded store's reads complete without yielding.
    await yieldToLoop();
    const final = docs[docs.length - 1]!;
    // Saved workflows are validated: a name is text, and an id too.
    last = { name: String(final['name']), id: String(final['_id']) };
  }
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

/**
 * The totals read every complete job of the workflow, so the store sums them (no job is read into memory) on its
 * search thread, in the caller's turn: one page of metrics over a long history cost the core seconds of its event
 * loop and hundreds of MB when the jobs were read here.
 */
export async function jobMetric(store: Store, wf: Doc, caller: string): Promise<JobMetric> {
  const name = String(wf['name']);
  const where = and([eq('name', jobType, name), eq('status', jobType, 'complete')]);
  const { count, total } = await store.collection(JOBS.name).spans(where, 'metrics.start_time', 'metrics.end_time', caller);
  return { _id: String(wf['_id']), workflow: { name }, jobsComplete: count, totalRunTime: total, metrics: [] };
}

/** No index holds a task's workflow, so each count reads the tasks of that status: counted like a caller's search. */
export async function taskMetric(store: Store, entry: TaskEntry, caller: string): Promise<TaskMetric> {
  const tasks = store.collection(TASKS.name);
  const of = async (status: string): Promise<number> => {
    const where = and([eq('job.name', taskType, entry.workflow.name), eq('job.task', taskType, entry.taskId), eq('status', taskType, status)]);
    return (await tasks.searchJson({ where, sort: [], skip: 0, limit: 0 }, [], caller)).total;
  };
  const totalSuccesses = await of('complete');
  const totalErrors = await of('error');
  return { ...entry, metrics: [{ totalSuccesses, totalErrors }] };
}
