/**
 * getJobFromTaskQuery: jobs found through a query on their tasks. The new
 * search answers tasks with the parent job nested (`dereference=job`), so the
 * caller derives the unique jobs (Rule 3); paging and sorting are over those
 * jobs, so every matching task is read first, up to a bound.
 */
import { LegacyFailure } from '../run.ts';
import type { CoreAnswer, HatchApi } from '../run.ts';
import type { Scope } from '../template.ts';
import { callOk, isObject, MAX_LIMIT, qOf } from './we-common.ts';

const PAGE = MAX_LIMIT;
/** Beyond this many matching tasks the legacy caller is asked to narrow the query. */
const MAX_TASKS = 10_000;
/** Job fields a task document carries in `job`, so a job filter can be applied to tasks. */
const JOB_FIELDS_ON_TASKS = new Set(['_id', 'name', 'description', 'ancestors']);

/** The legacy job filter as conditions on the tasks' `job.*` copy of the job. */
function onTasks(filter: unknown): unknown {
  if (Array.isArray(filter)) return filter.map(onTasks);
  if (!isObject(filter)) return filter;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and' || key === '$or' || key === '$nor') out[key] = onTasks(value);
    else if (key.startsWith('$')) out[key] = value;
    else if (JOB_FIELDS_ON_TASKS.has(key)) out[`job.${key}`] = value;
    else throw new LegacyFailure(`options.filter can only name ${[...JOB_FIELDS_ON_TASKS].join(', ')} of the job; ${key} cannot be searched through tasks`);
  }
  return out;
}

function at(doc: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (isObject(v) ? v[k] : undefined), doc);
}

/** Missing values after present ones (ascending), numbers as numbers, everything else as text. */
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === undefined || a === null) return 1;
  if (b === undefined || b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [String(a), String(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

export async function weJobsFromTaskQuery(args: unknown, _scope: Scope, api: HatchApi): Promise<CoreAnswer> {
  const { taskQuery, options } = isObject(args) ? args : {};
  const o = isObject(options) ? options : {};
  const parts = [taskQuery, isObject(o['filter']) ? onTasks(o['filter']) : undefined].filter((p) => isObject(p) && Object.keys(p).length > 0);
  const q = qOf(parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : { $and: parts });

  const jobs = new Map<string, Record<string, unknown>>();
  for (let skip = 0; ; skip += PAGE) {
    const query = { ...q, dereference: 'job', include: 'job', sort: '_id', order: '1', skip: String(skip), limit: String(PAGE) };
    const found = await callOk(api, { method: 'GET', path: '/operations-manager/tasks', query });
    const total = Number(found.metadata?.total ?? 0);
    if (total > MAX_TASKS) throw new LegacyFailure(`The task query matches ${total} tasks; getJobFromTaskQuery reads at most ${MAX_TASKS}, so narrow it`);
    const tasks = Array.isArray(found.data) ? found.data : [];
    for (const task of tasks) {
      const job = isObject(task) ? task['job'] : undefined;
      if (isObject(job) && typeof job['_id'] === 'string' && !jobs.has(job['_id'])) jobs.set(job['_id'], job);
    }
    if (tasks.length < PAGE || skip + PAGE >= total) break;
  }

  const sort = isObject(o['sort']) && typeof o['sort']['field'] === 'string' ? o['sort'] : { field: 'name', direction: 1 };
  const direction = ['-1', 'desc', 'descending'].includes(String(sort['direction']).toLowerCase()) ? -1 : 1;
  const field = String(sort['field']);
  // The new search's own order: the field, then _id, so equal values never swap between calls.
  const ordered = [...jobs.values()].sort((a, b) => direction * (compare(at(a, field), at(b, field)) || compare(a['_id'], b['_id'])));
  const page = isObject(o['page']) ? o['page'] : {};
  const skip = Math.max(0, Number(page['skip'] ?? 0) || 0);
  // No limit, or MongoDB's 0, means every job.
  const limit = Math.max(0, Number(page['limit'] ?? 0) || 0) || ordered.length;
  return { status: 200, body: ordered.slice(skip, skip + limit) };
}
