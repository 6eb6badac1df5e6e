/**
 * What each archive group takes from the store, batch by batch.
 *
 * `jobs`: finished jobs (`complete`, `canceled`) whose `metrics.end_time` is
 * before the cutoff, each with all its tasks, filed under the day the job
 * finished. `audit`: the gateway's records whose `time` is before the cutoff.
 *
 * Every store search also counts what its filter selects, so a filter over
 * the whole collection would cost a scan per batch. Batches are therefore
 * taken from a window over an indexed date (`metrics.start_time` for jobs,
 * `time` for audit) that widens while it finds little and narrows while it
 * finds much, so each search touches about a batch's worth of index entries.
 * A job starts before it ends, so the windows stop at the cutoff.
 */
import { and } from '../search/conditions.ts';
import type { Condition } from '../search/conditions.ts';
import { audit as auditType, jobs as jobsType, tasks as tasksType } from '../search/fields.ts';
import type { DocType, FieldDef } from '../search/fields.ts';
import type { Doc, Store } from '../store/types.ts';
import { dayOf } from './files.ts';
import type { ArchiveKind, GroupName } from './files.ts';

export const FINISHED_JOB_STATUSES = ['complete', 'canceled'] as const;
const DAY = 86_400_000;
/** Tasks of one batch of jobs are read in one search; a job with more would be split, so the bound is generous. */
const MAX_TASKS_PER_BATCH = 1_000_000;

export interface DueItem {
  readonly kind: ArchiveKind;
  readonly day: string;
  readonly id: string;
  readonly json: string;
}

export interface GroupSpec {
  readonly name: GroupName;
  /** Kinds in the order their documents are deleted: a job's tasks before the job. */
  readonly kinds: readonly ArchiveKind[];
  readonly windowField: FieldDef;
  readonly primary: 'jobs' | 'audit';
  due(cutoff: number): Condition;
  /** The batch's documents, primary ones and what goes with them. */
  expand(store: Store, docs: readonly Doc[]): Promise<DueItem[]>;
}

function fieldOf(type: DocType, path: string): FieldDef {
  const field = type.fields.get(path);
  if (!field) throw new Error(`the ${type.name} registry has no field ${path}`);
  return field;
}

const lt = (field: FieldDef, value: number): Condition => ({ kind: 'compare', op: 'lt', field, value });
const gte = (field: FieldDef, value: number): Condition => ({ kind: 'compare', op: 'gte', field, value });

const jobsGroup: GroupSpec = {
  name: 'jobs',
  kinds: ['tasks', 'jobs'],
  primary: 'jobs',
  windowField: fieldOf(jobsType, 'metrics.start_time'),
  due: (cutoff) => and([{ kind: 'in', field: fieldOf(jobsType, 'status'), values: [...FINISHED_JOB_STATUSES] }, lt(fieldOf(jobsType, 'metrics.end_time'), cutoff)])!,
  async expand(store, docs) {
    const items: DueItem[] = [];
    const dayOfJob = new Map<string, string>();
    for (const job of docs) {
      const id = String(job['_id']);
      const day = dayOf(Number((job['metrics'] as Record<string, unknown>)['end_time']));
      dayOfJob.set(id, day);
      items.push({ kind: 'jobs', day, id, json: JSON.stringify(job) });
    }
    if (docs.length === 0) return items;
    const { docs: tasks } = await store.collection('tasks').search({
      where: { kind: 'in', field: fieldOf(tasksType, 'job._id'), values: [...dayOfJob.keys()] },
      sort: [],
      skip: 0,
      limit: MAX_TASKS_PER_BATCH,
    });
    for (const task of tasks) {
      const jobId = String((task['job'] as Record<string, unknown>)['_id']);
      items.push({ kind: 'tasks', day: dayOfJob.get(jobId)!, id: String(task['_id']), json: JSON.stringify(task) });
    }
    return items;
  },
};

const auditGroup: GroupSpec = {
  name: 'audit',
  kinds: ['audit'],
  primary: 'audit',
  windowField: fieldOf(auditType, 'time'),
  due: (cutoff) => lt(fieldOf(auditType, 'time'), cutoff),
  async expand(_store, docs) {
    return docs.map((doc) => ({ kind: 'audit' as const, day: dayOf(Number(doc['time'])), id: String(doc['_id']), json: JSON.stringify(doc) }));
  },
};

export const GROUPS: Readonly<Record<GroupName, GroupSpec>> = { jobs: jobsGroup, audit: auditGroup };

/** Walks the window over the group's indexed date from the epoch up to the cutoff. */
export class DueWindow {
  private lo = 0;
  private width = DAY;

  constructor(private readonly store: Store, private readonly group: GroupSpec, private readonly cutoff: number, private readonly limit: number) {}

  /** The next page of due primary documents; empty once the window has passed the cutoff. */
  async next(): Promise<Doc[]> {
    const collection = this.store.collection(this.group.primary);
    const field = this.group.windowField;
    while (this.lo < this.cutoff) {
      const hi = Math.min(this.lo + this.width, this.cutoff);
      const where = and([this.group.due(this.cutoff), gte(field, this.lo), lt(field, hi)]);
      const page = await collection.search({ where, sort: [], skip: 0, limit: this.limit });
      if (page.total === 0) {
        this.lo = hi;
        this.width *= 2;
        continue;
      }
      if (page.total > this.limit * 4) this.width = Math.max(1, Math.floor(this.width / 2));
      else if (page.total <= this.limit) {
        // The page holds the whole window: the next search starts past it.
        this.lo = hi;
        if (page.total < this.limit / 4) this.width *= 2;
      }
      return page.docs;
    }
    return [];
  }

  /** How many due primary documents there are in all (one full count: for --dry-run, not for batches). */
  static countDue(store: Store, group: GroupSpec, cutoff: number): Promise<number> {
    return store.collection(group.primary).count(group.due(cutoff));
  }
}
