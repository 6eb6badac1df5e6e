/**
 * Finding workflows by id or by name, for the routes and for the engine,
 * and counting the jobs that still use a workflow.
 */
import type { StudioWorkflow } from '../engine/types.ts';
import { jobs as jobType, repository } from '../../../kernel/index.ts';
import type { Condition, Repository, SortKey, Store } from '../../../kernel/index.ts';
import { JOBS, WORKFLOWS } from '../store/collections.ts';
import { workflows as workflowType } from '../store/doc-types.ts';

const NAME = workflowType.fields.get('name')!;
const ID = workflowType.fields.get('_id')!;

/** Name order with `_id` to break ties, so pages never overlap. */
export function byName(direction: 1 | -1 = 1): SortKey[] {
  return [{ field: NAME, direction }, { field: ID, direction }];
}

export interface WorkflowLookup {
  byName(name: string): Promise<StudioWorkflow | null>;
  byId(id: string): Promise<StudioWorkflow | null>;
}

async function findByName(workflows: Repository<StudioWorkflow>, name: string): Promise<StudioWorkflow | null> {
  const where: Condition = { kind: 'compare', op: 'eq', field: NAME, value: name };
  // Names are unique (the collection's unique index), so the first id is the workflow: no page, no total
  // counted. Every job start asks, and a search with its total cost a start about 8% of its time (BENCHMARKS.md).
  const [id] = await workflows.collection.findIds(where, 1);
  return id === undefined ? null : workflows.find(id);
}

/** Workflows kept by name; a start names one of a few workflows, and each is a few KB. */
const KEPT = 64;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/**
 * Every job start reads its workflow by name: finding and parsing a 3.5 KB workflow cost a start about 46 us,
 * 3.5% of the core's time at a thousand starts a second (BENCHMARKS.md, "The engine toward 1,000 jobs a
 * second"). A workflow read is kept with the collection's change mark taken before the read, and answered again
 * only while the mark stays: any write to the collection, by this process or another, moves it (a store that
 * cannot tell keeps nothing). What is kept is frozen, since every caller gets the same object.
 */
function keptByName(workflows: Repository<StudioWorkflow>): (name: string) => Promise<StudioWorkflow | null> {
  const kept = new Map<string, { readonly mark: string; readonly workflow: StudioWorkflow }>();
  return async (name) => {
    const mark = workflows.collection.changeMark();
    if (mark === null) return findByName(workflows, name);
    const hit = kept.get(name);
    if (hit?.mark === mark) return hit.workflow;
    const found = await findByName(workflows, name);
    kept.delete(name);
    if (found) {
      if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
      kept.set(name, { mark, workflow: deepFreeze(found) });
    }
    return found;
  };
}

export function createWorkflowLookup(store: Store): WorkflowLookup {
  const workflows = repository(store, WORKFLOWS);
  return {
    byName: keptByName(workflows),
    // Ids are stored lower-case (UUIDs as the platform writes them).
    byId: (id) => workflows.find(id.toLowerCase()),
  };
}

/** Statuses of a job that is still using its workflow. */
export const ACTIVE_JOB_STATUSES = ['running', 'paused'] as const;

/** How many running or paused jobs run the workflow of this name (jobs carry the workflow's name). */
export async function countActiveJobs(store: Store, workflowName: string): Promise<number> {
  const name = jobType.fields.get('name')!;
  const status = jobType.fields.get('status')!;
  return repository(store, JOBS).collection.count({
    kind: 'and',
    items: [
      { kind: 'compare', op: 'eq', field: name, value: workflowName },
      { kind: 'in', field: status, values: [...ACTIVE_JOB_STATUSES] },
    ],
  });
}
