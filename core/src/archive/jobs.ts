/**
 * The core's archive group (docs/archive.md): finished jobs (`complete`,
 * `canceled`) whose `metrics.end_time` is before the cutoff, each with all
 * its tasks, filed under the day the job finished; and finding one again in
 * the archive by its id (`npm run archive -- --find`).
 */
import { and, dayOf, fieldOf, jobs as jobsType, lt, readDocs, readManifest, readSliced, tasks as tasksType } from '../../../kernel/index.ts';
import type { ArchiveFileEntry, DueItem, GroupSpec } from '../../../kernel/index.ts';
import { TASKS } from '../store/collections.ts';

export const FINISHED_JOB_STATUSES = ['complete', 'canceled'] as const;
/** The task ids of one batch of jobs are picked in one search; a job with more would be split, so the bound is generous. */
const MAX_TASKS_PER_BATCH = 1_000_000;

export const jobsGroup: GroupSpec = {
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
    const taskIds = await store.collection(TASKS.name).findIds({ kind: 'in', field: fieldOf(tasksType, 'job._id'), values: [...dayOfJob.keys()] }, MAX_TASKS_PER_BATCH);
    for (const { doc: task, json } of await readSliced(store, 'tasks', taskIds)) {
      const jobId = String((task['job'] as Record<string, unknown>)['_id']);
      items.push({ kind: 'tasks', day: dayOfJob.get(jobId)!, id: String(task['_id']), json });
    }
    return items;
  },
};

export interface FoundJob {
  readonly file: string;
  readonly job: Record<string, unknown>;
  readonly tasks: Array<Record<string, unknown>>;
}

/** The archived job with this id and its tasks, found through the manifest's id ranges; null when not archived. */
export async function findJob(dir: string, jobId: string): Promise<FoundJob | null> {
  const manifest = await readManifest(dir, 'jobs');
  const candidates = Object.entries(manifest.files).filter(([, e]) => e.kind === 'jobs' && e.minId <= jobId && jobId <= e.maxId);
  for (const [name, entry] of candidates) {
    const job = (await readDocs(dir, name, entry)).find((d) => d['_id'] === jobId);
    if (!job) continue;
    const tasksName = `tasks-${entry.day}.jsonl.gz`;
    const tasksEntry: ArchiveFileEntry | undefined = manifest.files[tasksName];
    const tasks = tasksEntry ? (await readDocs(dir, tasksName, tasksEntry)).filter((t) => (t['job'] as Record<string, unknown> | undefined)?.['_id'] === jobId) : [];
    return { file: name, job, tasks };
  }
  return null;
}
