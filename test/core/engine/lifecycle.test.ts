/**
 * Every control action in every job status, against the lifecycle table:
 * allowed actions change the job as the table says, actions already in effect
 * succeed and change nothing, refused ones answer 400 with the table's reason
 * and change nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JOB_RULES, JOB_STATUSES } from '../../../core/src/engine/lifecycle.ts';
import type { JobStatus } from '../../../core/src/engine/lifecycle.ts';
import { newObjectId } from '../../../kernel/store/ids.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, failing, job, manual, newVariable, post, startJob, workflow } from '../../helpers/engine.ts';

let core: RunningCore;

before(async () => {
  core = await startCore((await openTestStore()));
  await createWorkflow(core, workflow('wait-manual', { c3d4: manual() }, [['workflow_start', 'c3d4'], ['c3d4', 'workflow_end']]));
  await createWorkflow(core, workflow('auto', { a1b2: newVariable('x', 1) }, [['workflow_start', 'a1b2'], ['a1b2', 'workflow_end']]));
  await createWorkflow(core, workflow('fails', { f00d: failing() }, [['workflow_start', 'f00d'], ['f00d', 'workflow_end']]));
});
after(() => core.close());

/** A fresh job in the given status. */
async function jobIn(status: JobStatus): Promise<string> {
  if (status === 'complete') return startJob(core, 'auto');
  if (status === 'error') return startJob(core, 'fails');
  const id = await startJob(core, 'wait-manual');
  await job(core, id);
  if (status === 'paused') assert.equal((await post(core, '/jobs/pause', { jobIds: [id] })).status, 200);
  if (status === 'canceled') assert.equal((await post(core, '/jobs/cancel', { jobIds: [id] })).status, 200);
  if (status === 'incomplete') {
    const stored = (await core.store.collection('jobs').findById(id))!;
    const copy = { ...stored, _id: newObjectId(), status: 'incomplete', _runs: {} };
    await core.store.collection('jobs').insertOne(copy);
    return copy._id as string;
  }
  return id;
}

test('a job reaches each status the table names', async () => {
  for (const status of JOB_STATUSES) assert.equal((await job(core, await jobIn(status))).status, status);
});

const AFTER: Record<'cancel' | 'pause' | 'resume', string> = { cancel: 'canceled', pause: 'paused', resume: 'running' };

describe('bulk actions in every status', () => {
  for (const action of ['cancel', 'pause', 'resume'] as const) {
    for (const status of JOB_STATUSES) {
      const rule = JOB_RULES[action][status];
      test(`${action} on a ${status} job: ${rule === 'apply' ? `becomes ${AFTER[action]}` : rule === 'noop' ? 'succeeds and changes nothing' : 'is refused'}`, async () => {
        const id = await jobIn(status);
        const res = await post(core, `/jobs/${action}`, { jobIds: [id] });
        const now = await job(core, id);
        if (rule === 'apply') {
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.deepEqual(res.body, { message: 'Successfully completed the operation', data: null, metadata: {} });
          assert.equal(now.status, AFTER[action]);
        } else if (rule === 'noop') {
          assert.equal(res.status, 200);
          assert.equal(now.status, status);
        } else {
          assert.equal(res.status, 400);
          assert.deepEqual((res.body as { metadata: unknown }).metadata, { errors: [{ parameter: id, message: rule }] });
          assert.equal(now.status, status);
        }
      });
    }
  }
});

describe('job actions refused outside their statuses', () => {
  const calls: Record<'revert' | 'continue' | 'retry' | 'finish', (id: string) => Promise<{ status: number; body: unknown }>> = {
    revert: (id) => post(core, `/jobs/${id}/revert`, { fromTask: 'c3d4', toTask: 'workflow_start' }),
    continue: (id) => post(core, `/jobs/${id}/continue`, { taskId: 'c3d4' }),
    retry: (id) => post(core, `/jobs/${id}/tasks/c3d4/retry`, { variables: {} }),
    finish: (id) => post(core, `/jobs/${id}/tasks/c3d4/finish`, { finish_state: 'success', variables: {} }),
  };
  for (const action of ['revert', 'continue', 'retry', 'finish'] as const) {
    for (const status of JOB_STATUSES) {
      const rule = JOB_RULES[action][status];
      if (rule === 'apply' || rule === 'noop') continue;
      test(`${action} on a ${status} job is a 400 saying why, and changes nothing`, async () => {
        const id = await jobIn(status);
        const before = await job(core, id);
        const res = await calls[action](id);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.match((res.body as { message: string }).message, new RegExp(rule.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
        assert.deepEqual(await job(core, id), before);
      });
    }
  }
});

test('bulk actions are all or nothing: one refused id and no job changes', async () => {
  const running = await jobIn('running');
  const complete = await jobIn('complete');
  const unknown = 'f'.repeat(24);
  const res = await post(core, '/jobs/pause', { jobIds: [running, complete, unknown] });
  assert.equal(res.status, 400);
  const errors = (res.body as { metadata: { errors: Array<{ parameter: string }> } }).metadata.errors.map((e) => e.parameter).sort();
  assert.deepEqual(errors, [complete, unknown].sort());
  assert.equal((await job(core, running)).status, 'running');
});

test('jobIds are checked: at most 100, each an id', async () => {
  const many = Array.from({ length: 101 }, () => newObjectId());
  assert.equal((await post(core, '/jobs/cancel', { jobIds: many })).status, 400);
  assert.equal((await post(core, '/jobs/cancel', { jobIds: ['nope'] })).status, 400);
  assert.equal((await post(core, '/jobs/cancel', { jobIds: [] })).status, 400);
  assert.equal((await post(core, '/jobs/cancel', { job_id: newObjectId() })).status, 400);
});
