/**
 * Every legacy read operation as a random request and the answer the legacy
 * platform gave it (oracle.ts), in the request and answer shapes of the
 * legacy API (workflow-engine's bodies: `{query, options}`, `{options:
 * {query, ...}}`, `{filter, options}`, getJobList's `page` and
 * `{field, direction}` sort).
 */
import fc from 'fast-check';
import { JOB_STATUSES } from './documents.ts';
import type { Doc } from './documents.ts';
import { jobModel, limit, projection, query, skip, sort, sortObject, taskModel } from './legacy-options.ts';
import type { SortKeys, TypeModel } from './legacy-options.ts';
import { mongoFind, mongoQuery, projectAll, wrapper } from './oracle.ts';
import { PAGE } from './world.ts';
import type { LegacyCall, World } from './world.ts';

export interface ReadCase {
  readonly call: LegacyCall;
  /** Words one of which the legacy error must name; empty: the answer must equal `expected`. */
  readonly refusals: readonly string[];
  readonly expected: () => unknown;
}

export type ReadOperation = (world: World) => fc.Arbitrary<ReadCase>;

interface Options {
  readonly filter: Doc;
  readonly sort: SortKeys;
  readonly skip: number | undefined;
  readonly limit: number | undefined;
  readonly fields: Doc | undefined;
  readonly refusals: readonly string[];
  readonly filterRefusals: readonly string[];
  readonly fieldsRefusals: readonly string[];
}

function options(model: TypeModel, anySort = false): fc.Arbitrary<Options> {
  return fc.record({ q: query(model), s: sort(model, anySort), skip, limit: limit(PAGE), p: projection(model) }).map(({ q, s, skip: sk, limit: l, p }) => ({
    filter: q.value,
    sort: s.value,
    skip: sk,
    limit: l,
    fields: p.value,
    refusals: [...q.refusals, ...s.refusals, ...p.refusals],
    filterRefusals: q.refusals,
    fieldsRefusals: p.refusals,
  }));
}

/** Only the keys given, as a legacy client writes its options. */
function defined(doc: Doc): Doc {
  return Object.fromEntries(Object.entries(doc).filter(([, v]) => v !== undefined));
}

function mongoOptions(o: Options): Doc {
  return defined({ sort: o.sort.length > 0 ? sortObject(o.sort) : undefined, skip: o.skip, limit: o.limit, fields: o.fields });
}

const page = (o: Options) => ({ sort: o.sort, skip: o.skip, limit: o.limit, projection: o.fields });

/** The public fields of an account, as a dereferenced `metrics.user` shows them. */
function publicAccount(account: Doc): Doc {
  return Object.fromEntries(['_id', 'username', 'firstname', 'email', 'provenance', 'inactive'].filter((k) => k in account).map((k) => [k, account[k]]));
}

const jobsOf = (w: World): TypeModel => jobModel(w.jobs.map((j) => j['_id'] as string), w.sortable.jobs);
const tasksOf = (w: World): TypeModel => taskModel(w.tasks.map((t) => t['_id'] as string), w.jobs.map((j) => j['_id'] as string), w.sortable.tasks);

export const READS: Readonly<Record<string, ReadOperation>> = {
  find: (w) =>
    options(jobsOf(w)).map((o) => ({
      call: { method: 'POST', path: '/workflow_engine/jobs/find', body: { query: o.filter, options: mongoOptions(o) } },
      refusals: o.refusals,
      expected: () => mongoFind(w.jobs, o.filter, page(o)),
    })),
  searchJobs: (w) =>
    options(jobsOf(w)).map((o) => ({
      call: { method: 'POST', path: '/workflow_engine/jobs/search', body: { options: { query: o.filter, ...mongoOptions(o) } } },
      refusals: o.refusals,
      expected: () => wrapper(w.jobs, o.filter, page(o)),
    })),
  getAssociatedJobs: (w) =>
    options(jobsOf(w)).map((o) => ({
      call: { method: 'POST', path: '/workflow_engine/getAssociatedJobs', body: { options: { filter: o.filter, ...mongoOptions(o) } } },
      refusals: o.refusals,
      expected: () => {
        const answer = wrapper(w.jobs, o.filter, page(o));
        const results = (answer['results'] as Doc[]).map((job) => {
          const metrics = job['metrics'] as Doc | undefined;
          const withUser = metrics && metrics['user'] === w.admin['_id'] ? { ...job, metrics: { ...metrics, user: publicAccount(w.admin) } } : job;
          return projectAll([withUser], { transitions: 0, variables: 0 })[0]!;
        });
        return { ...answer, results };
      },
    })),
  queryJobs: (w) =>
    query(jobsOf(w)).map((q) => ({
      call: { method: 'POST', path: '/workflow_engine/queryJobs', body: { query: q.value } },
      refusals: q.refusals,
      expected: () => mongoFind(w.jobs, q.value, { sort: [] }),
    })),
  getJobList: (w) =>
    fc.tuple(options(jobsOf(w)), fc.constantFrom(...JOB_STATUSES, 'active', 'cancelled'), fc.boolean()).map(([o, status, workflowEngineSort]) => {
      const names = status === 'active' ? ['running', 'paused', 'error'] : status === 'cancelled' ? ['canceled'] : [status];
      // workflow-engine's own sort form, {field, direction}, holds one key.
      const sortKeys = workflowEngineSort ? o.sort.slice(0, 1) : o.sort;
      const sortOption = sortKeys.length === 0 ? undefined : workflowEngineSort ? { field: sortKeys[0]![0], direction: sortKeys[0]![1] } : sortObject(sortKeys);
      // One key is always expressible as a sort, when the field sorts.
      const unsortable = sortKeys.filter(([f]) => !jobsOf(w).sortable.includes(f)).map(([f]) => f);
      const refusals = workflowEngineSort ? [...o.filterRefusals, ...o.fieldsRefusals, ...unsortable.slice(0, 1)] : o.refusals;
      const filter = Object.keys(o.filter).length === 0 ? { status: { $in: names } } : { $and: [{ status: { $in: names } }, o.filter] };
      return {
        call: { method: 'POST', path: `/workflow_engine/getJobList/${status}`, body: { options: defined({ filter: o.filter, fields: o.fields, sort: sortOption, page: defined({ skip: o.skip, limit: o.limit }) }) } },
        refusals,
        expected: () => wrapper(w.jobs, filter, { ...page(o), sort: sortKeys }),
      };
    }),
  searchTasks: (w) =>
    fc.tuple(options(tasksOf(w)), fc.constantFrom('/workflow_engine/searchTasks', '/workflow_engine/tasks/search')).map(([o, path]) => ({
      call: { method: 'POST', path, body: { filter: o.filter, options: mongoOptions(o) } },
      refusals: o.refusals,
      expected: () => wrapper(w.tasks, o.filter, page(o)),
    })),
  queryTasksBrief: (w) =>
    query(tasksOf(w)).map((q) => ({
      call: { method: 'POST', path: '/workflow_engine/queryTasksBrief', body: { query: q.value } },
      refusals: q.refusals,
      expected: () => projectAll(mongoFind(w.tasks, q.value, { sort: [] }), { name: 1, summary: 1, status: 1, type: 1, job: 1, metrics: 1 }),
    })),
  getTask: (w) =>
    fc.tuple(query(tasksOf(w)), projection(tasksOf(w))).map(([q, p]) => ({
      call: { method: 'POST', path: '/workflow_engine/getTask', body: defined({ query: q.value, filter: p.value }) },
      refusals: [...q.refusals, ...p.refusals],
      expected: () => mongoFind(w.tasks, q.value, { sort: [], limit: 1, projection: p.value })[0] ?? null,
    })),
  getTaskStatuses: (w) =>
    fc.constantFrom(...w.jobs.map((j) => j['_id'] as string)).map((jobId) => ({
      call: { method: 'GET', path: `/workflow_engine/job/statuses/${jobId}` },
      refusals: [],
      expected: () => wrapper(w.tasks, { 'job._id': jobId }, { sort: [], projection: { name: 1, status: 1, 'job.task': 1 } }),
    })),
  getJobFromTaskQuery: (w) =>
    fc.tuple(options(tasksOf(w), true), query(jobModel(w.jobs.map((j) => j['_id'] as string))).filter((q) => Object.keys(q.value).every((k) => k === '_id' || k === 'name')), sort(jobsOf(w), true)).map(([o, jobFilter, jobSort]) => ({
      call: { method: 'POST', path: '/workflow_engine/getJobFromTaskQuery', body: { task_query: o.filter, options: defined({ filter: jobFilter.value, sort: jobSort.value.length > 0 ? sortObject(jobSort.value) : undefined, page: defined({ skip: o.skip, limit: o.limit }), fields: o.fields && sanitizeJobProjection(o.fields) }) } },
      refusals: [...o.refusals, ...jobFilter.refusals],
      expected: () => {
        const ids = new Set(mongoQuery(o.filter).find(w.tasks).all().map((t) => ((t as Doc)['job'] as Doc)['_id']));
        const jobs = w.jobs.filter((j) => ids.has(j['_id']));
        return mongoFind(jobs, jobFilter.value, { sort: jobSort.value, skip: o.skip, limit: o.limit, projection: o.fields && sanitizeJobProjection(o.fields) });
      },
    })),
  getEntireJob: (w) =>
    fc.constantFrom(...w.jobs).map((job) => ({
      call: { method: 'GET', path: `/workflow_engine/getEntireJob/${job['_id'] as string}` },
      refusals: [],
      expected: () => job,
    })),
};

/** getJobFromTaskQuery projects jobs: the task projection's paths mapped onto job paths that exist. */
function sanitizeJobProjection(fields: Doc): Doc {
  const onJobs: Record<string, string> = { job: 'name', 'job.task': 'status', 'metrics.owner': 'metrics.user', 'variables.incoming.n': 'variables.port', app: 'type', 'groups.x': 'groups' };
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [onJobs[k] ?? k, v]));
}
