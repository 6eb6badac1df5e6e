/**
 * `POST /operations-manager/jobs/:id/continue` names the errored task as the
 * real platform does, `{"fromTask": ...}` (its continue-job-from reference),
 * or as the interface document does, `{"taskId": ...}`: both continue the
 * job; a body with both, or neither, is a 400 and continues nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, failing, job, newVariable, post, startJob, workflow } from '../../helpers/engine.ts';

let core: RunningCore;
before(async () => {
  core = await startCore(await openTestStore());
  await createWorkflow(core, workflow('breaks', { a1b2: newVariable('before', 1), f00d: failing(), b2c3: newVariable('after', 2) }, [['workflow_start', 'a1b2'], ['a1b2', 'f00d'], ['f00d', 'b2c3'], ['b2c3', 'workflow_end']]));
});
after(() => core.close());

async function erroredJob(): Promise<string> {
  const id = await startJob(core, 'breaks');
  assert.equal((await job(core, id)).status, 'error');
  return id;
}

for (const [form, body] of [['the platform\'s fromTask', { fromTask: 'f00d' }], ['the interface\'s taskId', { taskId: 'f00d' }]] as const) {
  test(`continue named with ${form} skips the errored task and completes the job`, async () => {
    const id = await erroredJob();
    const res = await post(core, `/jobs/${id}/continue`, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const now = await job(core, id);
    assert.equal(now.status, 'complete');
    assert.equal(now.tasks['f00d']!.finish_state, 'success');
    assert.equal(now.variables['after'], 2);
  });
}

test('a body naming the task twice, or not at all, is a 400 and the job stays in error', async () => {
  const id = await erroredJob();
  for (const body of [{ fromTask: 'f00d', taskId: 'f00d' }, {}, { fromTask: 'nope!' }, { task: 'f00d' }]) {
    const res = await post(core, `/jobs/${id}/continue`, body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
  }
  assert.equal((await job(core, id)).status, 'error');
});
