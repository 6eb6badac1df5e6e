import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobs as jobType, tasks as taskType } from '../../kernel/search/fields.ts';
import type { DocType, FieldDef } from '../../kernel/search/fields.ts';
import type { Doc } from '../../kernel/store/types.ts';
import {
  JOB_STATUSES, STATUS_WEIGHTS, WORKFLOWS, generateDirectory, generateJobBatches,
} from '../../core/src/seed/generate.ts';
import type { GenerateOptions } from '../../core/src/seed/generate.ts';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const YEAR = 365 * 86_400_000;

function generate(opts: Partial<GenerateOptions> = {}): { jobs: Doc[]; tasks: Doc[] } {
  const jobs: Doc[] = [];
  const tasks: Doc[] = [];
  for (const b of generateJobBatches({ jobs: 400, seed: 7, batchSize: 100, tasksFraction: 1, now: NOW, ...opts })) {
    jobs.push(...b.jobs);
    tasks.push(...b.tasks);
  }
  return { jobs, tasks };
}

const sample = generate();

function at(doc: Doc, path: string): unknown {
  let v: unknown = doc;
  for (const k of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

const OBJECT_ID = /^[0-9a-f]{24}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function scalarProblem(f: FieldDef, v: unknown): string | null {
  switch (f.type) {
    case 'string':
      return typeof v === 'string' ? null : 'not a string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? null : 'not a finite number';
    case 'boolean':
      return typeof v === 'boolean' ? null : 'not a boolean';
    case 'objectId':
      return typeof v === 'string' && OBJECT_ID.test(v) ? null : 'not 24 lowercase hex';
    case 'uuid':
      return typeof v === 'string' && UUID.test(v) ? null : 'not a lowercase v4 UUID';
    case 'date':
      if (f.dateEncoding === 'epochMs') return Number.isSafeInteger(v) ? null : 'not epoch ms';
      return typeof v === 'string' && new Date(v).toISOString() === v ? null : 'not a toISOString() date';
  }
}

/** Every registry field present in the document has the registered type. */
function typeProblems(type: DocType, doc: Doc): string[] {
  const problems: string[] = [];
  for (const f of type.fields.values()) {
    const v = at(doc, f.path);
    // The platform writes `view: null` on tasks that have no UI.
    if (v === undefined || (v === null && f.path === 'view')) continue;
    if (f.array) {
      if (!Array.isArray(v)) problems.push(`${f.path}: not an array`);
      else for (const item of v) {
        const p = scalarProblem(f, item);
        if (p) problems.push(`${f.path}[]: ${p}`);
      }
    } else {
      const p = scalarProblem(f, v);
      if (p) problems.push(`${f.path}: ${p}`);
    }
  }
  return problems;
}

test('the same seed gives the same documents whatever the batch size; another seed does not', () => {
  const again = generate({ batchSize: 37 });
  assert.deepEqual(again.jobs, sample.jobs);
  assert.deepEqual(again.tasks, sample.tasks);
  const other = generate({ seed: 8 });
  const ids = new Set(sample.jobs.map((j) => j._id));
  assert.equal(other.jobs.filter((j) => ids.has(j._id)).length, 0);
  assert.notDeepEqual(other.jobs.map((j) => j['description']), sample.jobs.map((j) => j['description']));
});

test('job and task documents follow the field registry types', () => {
  for (const job of sample.jobs) assert.deepEqual(typeProblems(jobType, job), [], String(job._id));
  for (const task of sample.tasks) assert.deepEqual(typeProblems(taskType, task), [], String(task._id));
  // The check above skips absent fields, so make sure the important ones are there.
  for (const path of ['_id', 'name', 'description', 'type', 'status', 'metrics.start_time', 'metrics.progress', 'metrics.user', 'created', 'created_by', 'last_updated', 'last_updated_by', 'groups', 'watchers', 'ancestors']) {
    assert.ok(sample.jobs.every((j) => at(j, path) !== undefined), `every job has ${path}`);
  }
  for (const path of ['_id', 'name', 'summary', 'app', 'type', 'status', 'job._id', 'job.task', 'job.ancestors', 'groups', 'last_updated', 'metrics.start_time', 'metrics.user']) {
    assert.ok(sample.tasks.every((t) => at(t, path) !== undefined), `every task has ${path}`);
  }
  assert.ok(sample.tasks.some((t) => typeof t['view'] === 'string'), 'manual tasks carry a view');
  assert.ok(sample.tasks.some((t) => typeof at(t, 'metrics.owner') === 'string'), 'some tasks were claimed');
});

test('job statuses follow the intended distribution', () => {
  const counts = new Map<string, number>();
  let n = 0;
  for (const b of generateJobBatches({ jobs: 20_000, seed: 3, batchSize: 5000, tasksFraction: 0, now: NOW })) {
    for (const j of b.jobs) counts.set(j['status'] as string, (counts.get(j['status'] as string) ?? 0) + 1);
    n += b.jobs.length;
  }
  assert.deepEqual([...counts.keys()].sort(), [...JOB_STATUSES].sort());
  JOB_STATUSES.forEach((status, i) => {
    const share = (counts.get(status)! / n) * 100;
    assert.ok(Math.abs(share - STATUS_WEIGHTS[i]!) < 1.5, `${status}: ${share.toFixed(1)}% vs ${STATUS_WEIGHTS[i]}%`);
  });
});

test('each job is internally consistent', () => {
  for (const job of sample.jobs) {
    const id = job._id as string;
    const status = job['status'] as string;
    const m = job['metrics'] as Record<string, number>;
    const tasks = job['tasks'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(job['ancestors'], [id]);
    assert.equal(at(job, 'variables._id'), id);
    assert.equal(typeof at(job, 'variables.initiator'), 'string');
    assert.equal(job['type'], 'automation');
    assert.equal('end_time' in m, status !== 'running' && status !== 'paused', `${id} ${status} end_time`);
    if (status === 'complete') assert.equal(m['progress'], 1);
    else assert.ok(m['progress']! >= 0 && m['progress']! < 1, `${status} progress ${m['progress']}`);
    assert.ok(m['start_time']! <= NOW && m['start_time']! > NOW - YEAR - 86_400_000, `${id} starts in the year before now`);
    if (m['end_time'] !== undefined) assert.ok(m['end_time'] >= m['start_time']! && m['end_time'] <= NOW);
    assert.ok(Date.parse(job['created'] as string) <= m['start_time']!);
    assert.ok(Date.parse(job['last_updated'] as string) >= m['start_time']! && Date.parse(job['last_updated'] as string) <= NOW);
    const wf = WORKFLOWS.find((w) => (job['name'] as string).endsWith(w.name))!;
    assert.ok(wf, `job name ${String(job['name'])} names a workflow`);
    assert.deepEqual(Object.keys(tasks).sort(), ['workflow_end', 'workflow_start', ...wf.steps.map((s) => s.key)].sort());
    const errors = job['error'] as Array<Record<string, unknown>>;
    if (status === 'error') {
      assert.equal(errors.length, 1);
      assert.equal(tasks[errors[0]!['task'] as string]!['status'], 'error');
    } else {
      assert.deepEqual(errors, []);
    }
    assert.equal(job['output'] === null, status !== 'complete');
    const running = Object.values(tasks).filter((t) => t['status'] === 'running').length;
    assert.equal(running, status === 'running' ? 1 : 0, `${id} ${status} running tasks`);
  }
});

test('task documents reference their job, and job iterations reference them', () => {
  const jobs = new Map(sample.jobs.map((j) => [j._id as string, j]));
  const taskIds = new Set(sample.tasks.map((t) => t._id));
  assert.equal(taskIds.size, sample.tasks.length, 'task ids are unique');
  for (const task of sample.tasks) {
    const job = jobs.get(at(task, 'job._id') as string);
    assert.ok(job, 'the job exists');
    const entry = (job['tasks'] as Record<string, Record<string, unknown>>)[at(task, 'job.task') as string];
    assert.ok(entry, 'job.task is a key of the job');
    assert.ok((entry['iterations'] as string[]).includes(task._id as string));
    assert.equal(task['name'], entry['name']);
    assert.deepEqual(task['groups'], job['groups']);
    assert.equal(at(task, 'job.name'), job['name']);
  }
  for (const job of sample.jobs) {
    for (const entry of Object.values(job['tasks'] as Record<string, Record<string, unknown>>)) {
      const iterations = entry['iterations'] as string[];
      for (const it of iterations) assert.ok(taskIds.has(it), 'every iteration has a task document');
      assert.equal(iterations.length > 0, entry['status'] !== 'incomplete' && !String(entry['name']).startsWith('workflow_'));
      const last = sample.tasks.find((t) => t._id === iterations[iterations.length - 1]);
      if (last) assert.equal(last['status'], entry['status']);
    }
  }
});

test('tasksFraction only decides which jobs get task documents', () => {
  const none = generate({ tasksFraction: 0 });
  assert.equal(none.tasks.length, 0);
  const strip = (j: Doc): unknown => JSON.stringify(j).replace(/"iterations":\[[^\]]*\]/g, '');
  assert.deepEqual(none.jobs.map(strip), sample.jobs.map(strip));
  const some = generate({ tasksFraction: 0.25 });
  const withDocs = new Set(some.tasks.map((t) => at(t, 'job._id')));
  assert.ok(withDocs.size > 60 && withDocs.size < 140, `${withDocs.size} of 400 jobs have task documents`);
  assert.throws(() => generate({ tasksFraction: 1.5 }), RangeError);
});

test('jobs refer only to generated accounts and groups', () => {
  const dir = generateDirectory();
  const accountIds = new Set(dir.accounts.map((a) => a._id));
  const groupIds = new Set(dir.groups.map((g) => g._id));
  for (const a of dir.accounts) {
    assert.equal('password' in a, false);
    for (const m of a['memberOf'] as Array<{ groupId: string }>) assert.ok(groupIds.has(m.groupId));
  }
  assert.deepEqual(new Set(dir.workflows.map((w) => w['name'])), new Set(WORKFLOWS.map((w) => w.name)));
  for (const job of sample.jobs) {
    for (const path of ['metrics.user', 'created_by', 'last_updated_by']) assert.ok(accountIds.has(at(job, path) as string), path);
    for (const w of job['watchers'] as string[]) assert.ok(accountIds.has(w));
    for (const g of job['groups'] as string[]) assert.ok(groupIds.has(g), g);
  }
  assert.ok(sample.jobs.some((j) => (j['groups'] as string[]).length === 0));
  assert.ok(sample.jobs.some((j) => (j['groups'] as string[]).length === 2));
  assert.deepEqual(generateDirectory(), dir, 'the directory does not change between runs');
});

test('descriptions vary: common words select a few percent of jobs, and jobs stay small', () => {
  const { jobs } = generate({ jobs: 5000, tasksFraction: 0 });
  const share = (re: RegExp): number => jobs.filter((j) => re.test(j['description'] as string)).length / jobs.length;
  const upgrade = share(/\bupgrade\b/i);
  assert.ok(upgrade > 0.01 && upgrade < 0.1, `upgrade in ${(upgrade * 100).toFixed(1)}%`);
  assert.ok(share(/\.nyc\b|New York/) < 0.2 && share(/\.nyc\b|New York/) > 0.02);
  // Scheduled backups repeat their wording; everything else names a device, ticket or customer.
  const seen = new Map<unknown, number>();
  for (const j of jobs) seen.set(j['description'], (seen.get(j['description']) ?? 0) + 1);
  assert.ok(seen.size > jobs.length * 0.75, `${seen.size} distinct descriptions`);
  assert.ok(Math.max(...seen.values()) < jobs.length * 0.02, 'no description dominates');
  const sizes = jobs.map((j) => JSON.stringify(j).length);
  const avg = sizes.reduce((a, b) => a + b, 0) / sizes.length;
  assert.ok(avg > 1000 && avg < 3500, `average job is ${Math.round(avg)} bytes`);
});
