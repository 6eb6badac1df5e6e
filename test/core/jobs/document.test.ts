/**
 * The job document's module (core/src/jobs/document.ts): the one view every
 * answer shows of a job, and the statuses the seed draws from the lifecycle.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobs as jobType } from '../../../kernel/index.ts';
import { INTERNAL_JOB_FIELDS, jobJson, normalizeJob, principalOfJob, shownJob } from '../../../core/src/jobs/document.ts';
import type { JobDoc } from '../../../core/src/jobs/document.ts';
import { JOB_STATUSES as LIFECYCLE_STATUSES } from '../../../core/src/engine/lifecycle.ts';
import { JOB_STATUSES as SEEDED_STATUSES, STATUS_WEIGHTS } from '../../../core/src/seed/generate.ts';

/** A stored job with every internal field the kernel declares set. */
function storedJob(): JobDoc {
  const job = {
    _id: 'a'.repeat(24), name: 'w', description: '', status: 'running', tasks: {}, transitions: {}, variables: { x: 1 }, groups: [], ancestors: ['a'.repeat(24)], watchers: [],
    metrics: { start_time: 1, user: 'u1', progress: 0 }, error: [], output: { secret: true }, last_updated: '', last_updated_by: 'u1',
    _rev: 3, _runs: { it: { key: 't', incoming: {}, start: 1, owner: null } }, _waiting: ['t2'], _outputs: { t: { y: 2 } }, _outputKeys: null, _inflight: true, _taskRuns: 4, _treeJobs: 2,
    _principal: { kind: 'service', id: 's1' },
  } as JobDoc;
  for (const field of jobType.internal) if (!(field in job)) (job as Record<string, unknown>)[field] = `internal ${field}`;
  return job;
}

test('a shown job carries none of the fields the kernel declares internal, nor its output, and keeps the rest', () => {
  const shown = shownJob(storedJob());
  assert.ok(INTERNAL_JOB_FIELDS.length > 0);
  for (const field of [...jobType.internal, 'output']) assert.equal(Object.hasOwn(shown, field), false, field);
  assert.deepEqual(shown['variables'], { x: 1 });
  assert.equal(shown['status'], 'running');
  assert.equal(shown['_id'], 'a'.repeat(24));
});

test('the principal is internal: no answer tells who a job acts for', () => {
  assert.ok(INTERNAL_JOB_FIELDS.includes('_principal'));
  assert.equal(Object.hasOwn(shownJob(storedJob()), '_principal'), false);
});

test('showing a job leaves the stored document as it was', () => {
  const job = storedJob();
  const before = structuredClone(job);
  shownJob(job);
  assert.deepEqual(job, before);
});

test('an old stored job gets the engine fields it lacks, its runs counted from what it lists, and acts for its user', () => {
  const old = { _id: 'b'.repeat(24), name: 'w', status: 'running', tasks: { t: { name: 't', iterations: ['i1', 'i2'], iterationsOmitted: 3 } }, metrics: { start_time: 1, user: 'u9', progress: 0 } } as unknown as JobDoc;
  const job = normalizeJob(old);
  assert.equal(job._taskRuns, 5);
  assert.deepEqual([job._runs, job._waiting, job._outputs, job._outputKeys, job.error, job.watchers, job.groups], [{}, [], {}, null, [], [], []]);
  assert.deepEqual(principalOfJob(job), { kind: 'account', id: 'u9' });
  assert.deepEqual(principalOfJob(storedJob()), { kind: 'service', id: 's1' });
});

test('the seed draws every status of the lifecycle, each with a share, and no other', () => {
  assert.deepEqual([...SEEDED_STATUSES].sort(), [...LIFECYCLE_STATUSES].sort());
  assert.equal(STATUS_WEIGHTS.length, SEEDED_STATUSES.length);
  assert.equal(STATUS_WEIGHTS.reduce((a, b) => a + b, 0), 100);
});

test("a job's JSON is, to the byte, what serialising it and its shown view would give, odd values included", () => {
  const odd = storedJob() as JobDoc & Record<string, unknown>;
  // Left out of JSON as JSON leaves them out; the rest in their order, escaped as JSON escapes them.
  odd['description'] = 'quote " back\\slash \u2028 é 🚀';
  odd['skipped'] = undefined;
  odd['fn'] = () => 1;
  odd['when'] = new Date(0);
  odd['variables'] = JSON.parse('{"__proto__":{"polluted":true},"nested":{"a":[1,null,"x"]}}') as Record<string, unknown>;
  odd['1'] = 'an index-like key, which JSON puts first';
  for (const job of [storedJob(), odd, { ...storedJob(), output: undefined } as JobDoc]) {
    const json = jobJson(job);
    assert.equal(json.stored, JSON.stringify(job));
    assert.equal(json.shown, JSON.stringify(shownJob(job)));
  }
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

test("a job's shown JSON carries none of the internal fields nor its output", () => {
  const shown = JSON.parse(jobJson(storedJob()).shown) as Record<string, unknown>;
  for (const field of [...jobType.internal, 'output']) assert.equal(Object.hasOwn(shown, field), false, field);
  assert.deepEqual(shown['variables'], { x: 1 });
});
