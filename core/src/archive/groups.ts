/**
 * What each archive group takes from the store, batch by batch.
 *
 * `jobs`: finished jobs (`complete`, `canceled`) whose `metrics.end_time` is
 * before the cutoff, each with all its tasks, filed under the day the job
 * finished. `audit`: the gateway's records whose `time` is before the cutoff.
 *
 * Batches are taken from a window over an indexed date (`metrics.start_time`
 * for jobs, `time` for audit) that widens while it finds little and narrows
 * while it fills a batch, so each pick walks about a batch's worth of index
 * entries instead of skipping, every time, the documents before it that are
 * not due. A job starts before it ends, so the windows stop at the cutoff.
 *
 * Each step runs on the event loop of a service that is answering requests
 * (the embedded store does its work synchronously), so every step is cut
 * small: a batch is picked as ids only, without a count; its documents are
 * read and serialised a slice at a time, with a yield to the loop after each
 * (docs/archive.md, "How small the batches are").
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
/** The task ids of one batch of jobs are picked in one search; a job with more would be split, so the bound is generous. */
const MAX_TASKS_PER_BATCH = 1_000_000;
/** Documents read and serialised between two yields to the event loop. */
export const READ_SLICE = 25;

export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The documents with these ids, read `READ_SLICE` at a time with a yield after each slice, each with its JSON. */
async function readSliced(store: Store, collection: ArchiveKind, ids: readonly string[]): Promise<Array<{ doc: Doc; json: string }>> {
  const out: Array<{ doc: Doc; json: string }> = [];
  for (let i = 0; i < ids.length; i += READ_SLICE) {
    for (const doc of await store.collection(collection).findByIds(ids.slice(i, i + READ_SLICE))) out.push({ doc, json: JSON.stringify(doc) });
    await yieldToLoop();
  }
  return out;
}

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
  /** The documents of a batch of primary ids, with what goes with them, read a slice at a time. */
  expand(store: Store, ids: readonly string[]): Promise<DueItem[]>;
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
  async expand(store, ids) {
    const items: DueItem[] = [];
    const dayOfJob = new Map<string, string>();
    for (const { doc: job, json } of await readSliced(store, 'jobs', ids)) {
      const id = String(job['_id']);
      const day = dayOf(Number((job['metrics'] as Record<string, unknown>)['end_time']));
      dayOfJob.set(id, day);
      items.push({ kind: 'jobs', day, id, json });
    }
    if (dayOfJob.size === 0) return items;
    const taskIds = await store.collection('tasks').findIds({ kind: 'in', field: fieldOf(tasksType, 'job._id'), values: [...dayOfJob.keys()] }, MAX_TASKS_PER_BATCH);
    for (const { doc: task, json } of await readSliced(store, 'tasks', taskIds)) {
      const jobId = String((task['job'] as Record<string, unknown>)['_id']);
      items.push({ kind: 'tasks', day: dayOfJob.get(jobId)!, id: String(task['_id']), json });
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
  async expand(store, ids) {
    return (await readSliced(store, 'audit', ids)).map(({ doc, json }) => ({ kind: 'audit' as const, day: dayOf(Number(doc['time'])), id: String(doc['_id']), json }));
  },
};

export const GROUPS: Readonly<Record<GroupName, GroupSpec>> = { jobs: jobsGroup, audit: auditGroup };

/** Walks the window over the group's indexed date from the epoch up to the cutoff. */
export class DueWindow {
  private lo = 0;
  private width = DAY;

  constructor(private readonly store: Store, private readonly group: GroupSpec, private readonly cutoff: number, private readonly limit: number) {}

  /**
   * The ids of the next batch of due primary documents; empty once the
   * window has passed the cutoff. The batch's documents leave the store
   * before the next call, so a window that filled a batch is searched again
   * from its start, narrowed, until it holds less than a batch.
   */
  async next(): Promise<string[]> {
    const collection = this.store.collection(this.group.primary);
    const field = this.group.windowField;
    while (this.lo < this.cutoff) {
      const hi = Math.min(this.lo + this.width, this.cutoff);
      const ids = await collection.findIds(and([this.group.due(this.cutoff), gte(field, this.lo), lt(field, hi)]), this.limit);
      if (ids.length < this.limit) {
        // The window held no more than this: the next search starts past it.
        this.lo = hi;
        if (ids.length < this.limit / 4) this.width *= 2;
        if (ids.length === 0) continue;
      } else this.width = Math.max(1, Math.floor(this.width / 2));
      return ids;
    }
    return [];
  }

  /** How many due primary documents there are in all (one full count: for --dry-run, not for batches). */
  static countDue(store: Store, group: GroupSpec, cutoff: number): Promise<number> {
    return store.collection(group.primary).count(group.due(cutoff));
  }
}
