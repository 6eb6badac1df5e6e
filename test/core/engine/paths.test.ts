/**
 * The engine's paths end to end over HTTP: manual tasks claimed and finished,
 * revert, retry and continue after an error, pause holding progress and
 * resume releasing it, child jobs, watchers, groups, and racing requests.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, delayTask, failing, job, manual, newVariable, post, runningTask, startJob, workflow } from '../../helpers/engine.ts';
import { makeGroup, makeUser, role } from '../../helpers/users.ts';
import type { TestUser } from '../../helpers/users.ts';

let core: RunningCore;
let operator: TestUser;
let other: TestUser;

before(async () => {
  core = await startCore((await openTestStore()));
  operator = await makeUser(core, 'operator-1', { roles: [role('OperationsManager', 'operations')] });
  other = await makeUser(core, 'operator-2', { roles: [role('OperationsManager', 'operations')] });
  await createWorkflow(core, workflow('approve', { a1b2: newVariable('port', '$var.job.port'), c3d4: manual({ approved: '$var.job.approved' }) }, [['workflow_start', 'a1b2'], ['a1b2', 'c3d4'], ['c3d4', 'workflow_end']], { outputSchema: { type: 'object', properties: { approved: { type: 'boolean' } } }, inputSchema: { type: 'object', properties: { port: { type: 'string' } } } }));
  await createWorkflow(core, workflow('breaks', { a1b2: newVariable('before', 1), f00d: failing(), b2c3: newVariable('after', 2) }, [['workflow_start', 'a1b2'], ['a1b2', 'f00d'], ['f00d', 'b2c3'], ['b2c3', 'workflow_end']]));
  await createWorkflow(core, workflow('slow', { d1: delayTask(0.3), a2: newVariable('done', true) }, [['workflow_start', 'd1'], ['d1', 'a2'], ['a2', 'workflow_end']]));
  await createWorkflow(core, workflow('child', { a1b2: newVariable('seen', '$var.job.given') }, [['workflow_start', 'a1b2'], ['a1b2', 'workflow_end']], { outputSchema: { type: 'object', properties: { seen: {} } } }));
  await createWorkflow(core, workflow('parent', {
    c1: { name: 'childJob', app: 'WorkFlowEngine', type: 'automatic', actor: 'job', variables: { incoming: { task: '', workflow: 'child', variables: { given: { task: 'job', value: 'missing' } }, data_array: [], transformation: '', loopType: '' }, outgoing: { job_details: '$var.job.details' } } },
  }, [['workflow_start', 'c1'], ['c1', 'workflow_end']]));
  await createWorkflow(core, workflow('parallel', { a1: newVariable('left', 1), b1: newVariable('right', 2), c1: newVariable('joined', true) }, [['workflow_start', 'a1'], ['workflow_start', 'b1'], ['a1', 'c1'], ['b1', 'c1'], ['c1', 'workflow_end']]));
});
after(() => core.close());

test('a manual task waits running, is claimed, and its finish values become job variables and output', async () => {
  const id = await startJob(core, 'approve', { port: 'Gi0/1' }, operator.token);
  let now = await job(core, id);
  assert.equal(now.status, 'running');
  assert.equal(now.tasks['a1b2']!.status, 'complete');
  assert.equal(now.tasks['c3d4']!.status, 'running');
  assert.equal(now.metrics.progress, 0.5);
  const taskId = await runningTask(core, id, 'c3d4');
  assert.equal((await post(core, `/tasks/${taskId}/claim`, undefined, operator.token)).status, 200);
  const stolen = await post(core, `/tasks/${taskId}/claim`, undefined, other.token);
  assert.equal(stolen.status, 400);
  assert.match((stolen.body as { message: string }).message, /already claimed/);
  const notMine = await post(core, `/jobs/${id}/tasks/c3d4/finish`, { finish_state: 'success', variables: {} }, other.token);
  assert.equal(notMine.status, 400);
  const controller = await core.request(`/operations-manager/jobs/${id}/tasks/c3d4/manual-controller`, { token: operator.token });
  assert.equal((controller.body as { data: { owner: string; iteration: string } }).data.owner, operator.id);
  assert.equal((controller.body as { data: { iteration: string } }).data.iteration, taskId);
  const finished = await post(core, `/jobs/${id}/tasks/c3d4/finish`, { taskData: { finish_state: 'success', variables: { approved: true } } }, operator.token);
  assert.deepEqual(finished.body, { message: 'Successfully completed the operation', data: null, metadata: {} });
  now = await job(core, id);
  assert.equal(now.status, 'complete');
  assert.equal(now.variables['approved'], true);
  assert.equal(now.variables['port'], 'Gi0/1');
  const output = await core.request(`/operations-manager/job/${id}?dereference=output&include=output,variables`);
  assert.deepEqual((output.body as { data: { output: unknown } }).data.output, { approved: true });
  const task = await core.request(`/operations-manager/tasks/${taskId}`);
  assert.equal((task.body as { data: { status: string } }).data.status, 'complete');
});

test('assign and release move the owner of a manual task', async () => {
  const id = await startJob(core, 'approve', { port: 'x' });
  const taskId = await runningTask(core, id, 'c3d4');
  assert.equal((await post(core, `/tasks/${taskId}/assign`, { userId: other.id })).status, 200);
  assert.equal((await post(core, `/jobs/${id}/tasks/c3d4/finish`, { finish_state: 'success', variables: {} }, operator.token)).status, 400);
  assert.equal((await post(core, `/tasks/${taskId}/release`)).status, 200);
  assert.equal((await post(core, `/jobs/${id}/tasks/c3d4/finish`, { finish_state: 'success', variables: {} }, operator.token)).status, 200);
  assert.equal((await job(core, id)).status, 'complete');
  assert.equal((await post(core, `/tasks/${taskId}/assign`, { userId: 'e'.repeat(24) })).status, 400);
});

test('a start variable of the wrong type is a 400 naming it', async () => {
  const res = await post(core, '/jobs/start', { workflow: 'approve', options: { variables: { port: 7 } } });
  assert.equal(res.status, 400);
  assert.deepEqual((res.body as { metadata: unknown }).metadata, { errors: [{ parameter: 'options.variables.port', message: 'must be string' }] });
  assert.equal((await post(core, '/jobs/start', { workflow: 'no-such-workflow' })).status, 400);
});

test('a task error stops the job in error; retry runs it again', async () => {
  const id = await startJob(core, 'breaks');
  let now = await job(core, id);
  assert.equal(now.status, 'error');
  assert.equal(now.tasks['f00d']!.status, 'error');
  assert.equal(now.error[0]!.task, 'f00d');
  const retried = await post(core, `/jobs/${id}/tasks/f00d/retry`, { variables: { input: '{"fixed": true}' } });
  assert.equal(retried.status, 200, JSON.stringify(retried.body));
  now = await job(core, id);
  assert.equal(now.status, 'complete');
  assert.equal(now.tasks['f00d']!.iterations.length, 2);
  assert.equal(now.variables['after'], 2);
});

test('continue skips an errored task and goes on along its success transitions', async () => {
  const id = await startJob(core, 'breaks');
  assert.equal((await job(core, id)).status, 'error');
  assert.equal((await post(core, `/jobs/${id}/continue`, { fromTask: 'f00d' })).status, 200);
  const now = await job(core, id);
  assert.equal(now.status, 'complete');
  assert.equal(now.tasks['f00d']!.finish_state, 'success');
});

test('continue by task document id does the same', async () => {
  const id = await startJob(core, 'breaks');
  await job(core, id);
  const tasks = await core.request(`/operations-manager/tasks?equals[job._id]=${id}&equals[job.task]=f00d`);
  const taskId = (tasks.body as { data: Array<{ _id: string }> }).data[0]!._id;
  assert.equal((await post(core, `/tasks/${taskId}/continue`)).status, 200);
  assert.equal((await job(core, id)).status, 'complete');
});

test('revert runs a completed task again from an errored one', async () => {
  const id = await startJob(core, 'breaks');
  await job(core, id);
  assert.equal((await post(core, `/jobs/${id}/revert`, { fromTask: 'f00d', toTask: 'a1b2' })).status, 200);
  const now = await job(core, id);
  // a1b2 ran again and f00d failed again: the job is back in error, with two iterations of each.
  assert.equal(now.status, 'error');
  assert.equal(now.tasks['a1b2']!.iterations.length, 2);
  assert.equal(now.tasks['f00d']!.iterations.length, 2);
  assert.equal((await post(core, `/jobs/${id}/revert`, { fromTask: 'a1b2', toTask: 'f00d' })).status, 400);
});

test('pause holds progress after the running task finishes, resume continues', async () => {
  const id = await startJob(core, 'slow');
  assert.equal((await post(core, '/jobs/pause', { jobIds: [id] })).status, 200);
  // job() waits for the engine to be idle: the running delay has finished and whatever it would start has started.
  let now = await job(core, id);
  assert.equal(now.status, 'paused');
  assert.equal(now.tasks['d1']!.status, 'complete', 'the running delay finished');
  assert.equal(now.tasks['a2']!.status, 'incomplete', 'the next task did not start while paused');
  assert.equal((await post(core, '/jobs/resume', { jobIds: [id] })).status, 200);
  now = await job(core, id);
  assert.equal(now.status, 'complete');
  assert.equal(now.variables['done'], true);
});

test('cancel aborts a running task at once', async () => {
  const id = await startJob(core, 'slow');
  const started = Date.now();
  assert.equal((await post(core, '/jobs/cancel', { jobIds: [id] })).status, 200);
  const now = await job(core, id);
  assert.equal(now.status, 'canceled');
  assert.equal(now.tasks['d1']!.status, 'canceled');
  assert.ok(Date.now() - started < 300);
});

test('a child job gets an undefined parent variable as null, and carries its ancestors', async () => {
  const id = await startJob(core, 'parent');
  const now = await job(core, id);
  assert.equal(now.status, 'complete', JSON.stringify(now.error));
  const details = now.variables['details'] as { _id: string; status: string; variables: Record<string, unknown> };
  assert.equal(details.status, 'complete');
  assert.equal(details.variables['given'], null);
  const child = await core.request(`/operations-manager/jobs/${details._id}`);
  assert.deepEqual((child.body as { data: { ancestors: string[] } }).data.ancestors, [id, details._id]);
});

test('parallel branches join before the task they both lead to', async () => {
  const id = await startJob(core, 'parallel');
  const now = await job(core, id);
  assert.equal(now.status, 'complete');
  assert.equal(now.tasks['c1']!.iterations.length, 1);
  assert.deepEqual([now.variables['left'], now.variables['right'], now.variables['joined']], [1, 2, true]);
});

test('watch and unwatch add and remove the caller, repeating changes nothing', async () => {
  const id = await startJob(core, 'approve', { port: 'w' });
  for (let i = 0; i < 2; i += 1) assert.equal((await post(core, `/jobs/${id}/watch`, undefined, operator.token)).status, 200);
  assert.deepEqual((await job(core, id)).watchers, [operator.id]);
  assert.equal((await post(core, `/jobs/${id}/unwatch`, undefined, operator.token)).status, 200);
  assert.deepEqual((await job(core, id)).watchers, []);
});

test('job groups are added, replaced, removed and cleared, and its tasks follow', async () => {
  const g1 = await makeGroup(core, 'grp-one');
  const g2 = await makeGroup(core, 'grp-two');
  const id = await startJob(core, 'approve', { port: 'g' });
  assert.equal((await post(core, `/jobs/${id}/groups`, { groupId: g1 })).status, 200);
  assert.equal((await post(core, `/jobs/${id}/groups`, { group: g2 })).status, 200);
  assert.deepEqual((await job(core, id)).groups, [g1, g2]);
  const taskId = await runningTask(core, id, 'c3d4');
  assert.deepEqual(((await core.request(`/operations-manager/tasks/${taskId}`)).body as { data: { groups: string[] } }).data.groups, [g1, g2]);
  assert.equal((await core.request(`/operations-manager/jobs/${id}/groups/${g1}`, { method: 'DELETE' })).status, 200);
  assert.deepEqual((await job(core, id)).groups, [g2]);
  assert.equal((await core.request(`/operations-manager/jobs/${id}/groups`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ groups: [g1] }) })).status, 200);
  assert.deepEqual((await job(core, id)).groups, [g1]);
  assert.equal((await post(core, `/jobs/${id}/groups`, { groupId: 'e'.repeat(24) })).status, 400);
  assert.equal((await core.request(`/operations-manager/jobs/${id}/groups`, { method: 'DELETE' })).status, 200);
  assert.deepEqual((await job(core, id)).groups, []);
});

test('a caller outside a job\'s groups can neither read nor act on it', async () => {
  const g = await makeGroup(core, 'private-group');
  const id = await startJob(core, 'approve', { port: 'p' });
  assert.equal((await post(core, `/jobs/${id}/groups`, { groupId: g })).status, 200);
  const taskId = await runningTask(core, id, 'c3d4');
  for (const res of [
    await core.request(`/operations-manager/jobs/${id}`, { token: operator.token }),
    await post(core, '/jobs/cancel', { jobIds: [id] }, operator.token),
    await post(core, `/jobs/${id}/tasks/c3d4/finish`, { finish_state: 'success', variables: {} }, operator.token),
    await post(core, `/tasks/${taskId}/claim`, undefined, operator.token),
    await post(core, `/jobs/${id}/watch`, undefined, operator.token),
    await core.request(`/operations-manager/jobs/${id}/tasks/c3d4/manual-controller`, { token: operator.token }),
  ]) {
    assert.ok(res.status === 404 || res.status === 400, `${res.status} ${JSON.stringify(res.body)}`);
  }
  assert.equal((await job(core, id)).status, 'running');
});

test('finish racing cancel leaves one consistent state', async () => {
  for (let i = 0; i < 5; i += 1) {
    const id = await startJob(core, 'approve', { port: 'r' });
    await job(core, id);
    const [fin, can] = await Promise.all([
      post(core, `/jobs/${id}/tasks/c3d4/finish`, { finish_state: 'success', variables: { approved: true } }),
      post(core, '/jobs/cancel', { jobIds: [id] }),
    ]);
    const now = await job(core, id);
    if (now.status === 'complete') {
      assert.equal(fin.status, 200);
      assert.equal(can.status, 400, 'a complete job cannot be canceled');
      assert.equal(now.tasks['c3d4']!.status, 'complete');
    } else {
      assert.equal(now.status, 'canceled');
      assert.equal(can.status, 200);
      assert.equal(fin.status, 400);
      assert.equal(now.tasks['c3d4']!.status, 'canceled');
    }
  }
});

test('two claims racing: exactly one wins', async () => {
  const id = await startJob(core, 'approve', { port: 'c' });
  const taskId = await runningTask(core, id, 'c3d4');
  const results = await Promise.all([post(core, `/tasks/${taskId}/claim`, undefined, operator.token), post(core, `/tasks/${taskId}/claim`, undefined, other.token)]);
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 400]);
});

test('forEach runs its loop body once per item, then leaves by success', async () => {
  await createWorkflow(core, workflow('each', {
    f1: { name: 'forEach', app: 'WorkFlowEngine', type: 'automatic', variables: { incoming: { data_array: '$var.job.items' }, outgoing: { current_item: null } } },
    e1: { name: 'push', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { job_variable: 'seen', item_to_push: '$var.f1.current_item' }, outgoing: {} } },
  }, [['workflow_start', 'f1'], ['f1', 'e1', 'loop'], ['e1', 'f1'], ['f1', 'workflow_end']]));
  const id = await startJob(core, 'each', { items: ['a', 'b', 'c'] });
  const now = await job(core, id);
  assert.equal(now.status, 'complete', JSON.stringify(now.error));
  assert.deepEqual(now.variables['seen'], ['a', 'b', 'c']);
  assert.equal(now.tasks['f1']!.iterations.length, 4);
  assert.equal(now.tasks['e1']!.iterations.length, 3);
});

test('revert to workflow_start starts the workflow over', async () => {
  const id = await startJob(core, 'breaks');
  await job(core, id);
  assert.equal((await post(core, `/jobs/${id}/revert`, { fromTask: 'f00d', toTask: 'workflow_start' })).status, 200);
  const now = await job(core, id);
  assert.equal(now.status, 'error', 'it ran the workflow again and failed at the same task');
  assert.equal(now.tasks['a1b2']!.iterations.length, 2);
  assert.equal(now.error.length, 2);
  assert.equal((await post(core, `/jobs/${id}/revert`, { fromTask: 'f00d', toTask: 'workflow_end' })).status, 400);
});
