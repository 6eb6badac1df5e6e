/**
 * getJobFromTaskQuery: jobs found through a query on their tasks. The new
 * search answers tasks with the parent job nested (`dereference=job`), so the
 * caller derives the unique jobs (Rule 3); paging, sorting and the projection are over
 * those jobs, with MongoDB's rules, so every matching task is read first, up
 * to a bound.
 */
import { LegacyFailure } from '../../run.ts';
import type { HatchRecord } from '../../run.ts';
import type { CoreAnswer, HatchApi } from '../../run.ts';
import type { Scope } from '../../template.ts';
import { readLimit, readProjection, readSkip, readSort, project } from '../../legacy-options.ts';
import { qOf } from '../../legacy-search.ts';
import { callOk } from './common.ts';
import { nextSkipOf, readPages } from '../../pages.ts';
import { hatchRecord } from '../record.ts';
import { isPlainObject } from '../../../../../kernel/index.ts';

/** Beyond this many matching tasks the legacy caller is asked to narrow the query. */
const MAX_TASKS = 10_000;
/** Job fields a task document carries in `job`, so a job filter can be applied to tasks. */
const JOB_FIELDS_ON_TASKS = new Set(['_id', 'name', 'description', 'ancestors']);

/** The legacy job filter as conditions on the tasks' `job.*` copy of the job. */
function onTasks(filter: unknown): unknown {
  if (Array.isArray(filter)) return filter.map(onTasks);
  if (!isPlainObject(filter)) return filter;
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
  return path.split('.').reduce<unknown>((v, k) => (isPlainObject(v) ? v[k] : undefined), doc);
}

/** MongoDB's order of types (missing and null first, then numbers, text, booleans). */
function rank(v: unknown, field: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return 1;
  if (typeof v === 'string') return 2;
  if (typeof v === 'boolean') return 3;
  throw new LegacyFailure(`getJobFromTaskQuery cannot sort on ${field}: it holds lists or documents`);
}

function compare(a: unknown, b: unknown, field: string): number {
  const [ra, rb] = [rank(a, field), rank(b, field)];
  if (ra !== rb || ra === 0) return ra - rb;
  return (a as number | string) < (b as number | string) ? -1 : (a as number | string) > (b as number | string) ? 1 : 0;
}

export async function weJobsFromTaskQuery(args: unknown, _scope: Scope, api: HatchApi): Promise<CoreAnswer> {
  const { taskQuery, options } = isPlainObject(args) ? args : {};
  const o = isPlainObject(options) ? options : {};
  const parts = [taskQuery, isPlainObject(o['filter']) ? onTasks(o['filter']) : undefined].filter((p) => isPlainObject(p) && Object.keys(p).length > 0);
  const q = qOf(parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : { $and: parts }, 'tasks');
  const page = isPlainObject(o['page']) ? o['page'] : {};
  // Read before any call, so a bad option is refused without work.
  const given = readSort(o['sort']);
  const skip = readSkip(page['skip']);
  const limit = readLimit(page['limit']);
  const projection = readProjection(o['fields']);

  const jobs = new Map<string, Record<string, unknown>>();
  await readPages({
    skip: 0,
    limit: null,
    paging: api.paging,
    read: async (at, want) => {
      const query = { ...q, dereference: 'job', include: 'job', sort: '_id', order: '1', skip: String(at), limit: String(want) };
      const found = await callOk(api, { method: 'GET', path: '/operations-manager/tasks', query });
      const total = Number(found.metadata?.total ?? 0);
      if (total > MAX_TASKS) throw new LegacyFailure(`The task query matches ${total} tasks; getJobFromTaskQuery reads at most ${MAX_TASKS}, so narrow it`);
      const tasks = Array.isArray(found.data) ? found.data : [];
      for (const task of tasks) {
        const job = isPlainObject(task) ? task['job'] : undefined;
        if (isPlainObject(job) && typeof job['_id'] === 'string' && !jobs.has(job['_id'])) jobs.set(job['_id'], job);
      }
      return { items: tasks, total, nextSkip: nextSkipOf(found.metadata) };
    },
  });

  // The jobs are sorted here, so any MongoDB sort can be; without one, by name as the new search orders. _id last keeps the order total.
  const keys = [...(given.length > 0 ? given : [['name', 1] as const]), ['_id', given[0]?.[1] ?? 1] as const];
  const ordered = [...jobs.values()].sort((a, b) => {
    for (const [field, direction] of keys) {
      const c = compare(at(a, field), at(b, field), field);
      if (c !== 0) return direction * c;
    }
    return 0;
  });
  return { status: 200, body: ordered.slice(skip, limit === null ? undefined : skip + limit).map((job) => project(job, projection)) };
}

export const weJobsFromTaskQueryHatch: HatchRecord = hatchRecord(
  'weJobsFromTaskQuery',
  'workflow-engine',
  'the unique jobs of the matching tasks, paged, sorted and projected as jobs with MongoDB rules',
  { required: ['taskQuery'], properties: { taskQuery: { type: 'object' }, options: { type: 'object' } } },
  weJobsFromTaskQuery,
);
