/**
 * What one page may expand: `dereference=job` copies each task's whole job
 * into the page, so 1,000 tasks of one large job would be an answer a
 * thousand times the job, built on the core's event loop; `dereference=tasks`
 * reads every task run a page of jobs lists. Past `search.maxDereferenceMb`
 * and `search.maxDereferenceTasks` the search is refused with a 400 naming
 * `dereference` and what to ask instead, before anything is copied; within
 * them, the page is answered in full.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { jobs, tasks } from '../../fixtures/search-data.ts';

let core: RunningCore;
const JOB = '0000000000000000000000b1';
/** A job of about 300 KB: its variables hold what a large start or task outputs put there. */
const big = { ...jobs[0]!, _id: JOB, name: 'Large Job', variables: { config: 'x'.repeat(300_000) }, tasks: { loop: { name: 'query', status: 'complete', iterations: [] as string[] } } };
const runId = (i: number): string => `00000000-0000-4000-8000-${(0xb00 + i).toString(16).padStart(12, '0')}`;

before(async () => {
  const store = await openTestStore();
  const runs = Array.from({ length: 25 }, (_, i) => ({ ...tasks[0]!, _id: runId(i), job: { _id: JOB, task: 'loop', name: 'Large Job', ancestors: [JOB] } }));
  big.tasks.loop.iterations = runs.map((r) => String(r._id));
  await store.collection('jobs').insertOne(big);
  await store.collection('tasks').insertMany(runs);
  core = await startCore(store, { SEARCH_MAX_DEREFERENCE_MB: '1', SEARCH_MAX_DEREFERENCE_TASKS: '20' });
});
after(() => core.close());

type Answer = { data: unknown; metadata: { errors?: Array<{ parameter: string; message: string }>; total?: number } };

test('a page of tasks that would copy more than the bound of jobs is refused naming dereference, before it is built', async () => {
  const res = await core.request('/operations-manager/tasks?equals[job._id]=0000000000000000000000b1&dereference=job&limit=10');
  assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
  assert.equal(res.headers.get('x-error-code'), 'VALIDATION_FAILED');
  const errors = (res.body as Answer).metadata.errors ?? [];
  assert.equal(errors[0]?.parameter, 'dereference');
  assert.match(errors[0]?.message ?? '', /dereference=job would copy more than 1\.\d MiB of jobs into this page, past the 1 MiB one page may carry; ask for fewer tasks \(limit\)/);
});

test('within the bound the same search answers every task with its whole job', async () => {
  const res = await core.request('/operations-manager/tasks?equals[job._id]=0000000000000000000000b1&dereference=job&limit=3');
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  const page = (res.body as Answer).data as Array<{ job: { _id: string; variables: { config: string } } }>;
  assert.equal(page.length, 3);
  for (const task of page) {
    assert.equal(task.job._id, JOB);
    assert.equal(task.job.variables.config.length, 300_000);
  }
  const plain = await core.request('/operations-manager/tasks?equals[job._id]=0000000000000000000000b1&limit=25');
  assert.equal(plain.status, 200, 'without dereference, the page carries no jobs and no bound applies');
  assert.equal(((plain.body as Answer).data as unknown[]).length, 25);
});

test('a job whose task runs are more than a page may read is refused for dereference=tasks, by search and by id', async () => {
  for (const path of ['/operations-manager/jobs?equals[name]=Large%20Job&dereference=tasks', `/operations-manager/jobs/${JOB}?dereference=tasks`]) {
    const res = await core.request(path);
    assert.equal(res.status, 400, path);
    const errors = (res.body as Answer).metadata.errors ?? [];
    assert.deepEqual(errors.map((e) => e.parameter), ['dereference'], path);
    assert.match(errors[0]!.message, /dereference=tasks would read 25 task runs for this page, past the 20 one page may read; ask for fewer jobs \(limit\)/);
  }
});
