/** Discovered gateway actions run as workflow tasks, end to end: HTTP job start, engine, gateway stand-in. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createWorkflow, job, startJob, workflow } from '../../helpers/engine.ts';
import { adapterPath, startGatewayFixture } from './fixture.ts';
import type { GatewayFixture } from './fixture.ts';

let f: GatewayFixture;

/** A one-task workflow running a gateway action of `lab gateway`. */
function gatewayWorkflow(name: string, task: string, incoming: Record<string, unknown>): Record<string, unknown> {
  const a1b2 = { name: task, app: 'lab gateway', type: 'automatic', location: 'Adapter', variables: { incoming, outgoing: { result: '$var.job.result' } } };
  return workflow(name, { a1b2 }, [['workflow_start', 'a1b2'], ['a1b2', 'workflow_end']]);
}

async function discover(): Promise<void> {
  const res = await f.core.request(adapterPath('lab gateway'));
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

before(async () => {
  f = await startGatewayFixture();
  await createWorkflow(f.core, gatewayWorkflow('hello', 'script:hello.py', { args: '$var.job.args' }));
  await createWorkflow(f.core, gatewayWorkflow('backup', 'playbook:backup.yml', { args: { tag: 'nightly' }, hosts: ['r1', 'r2'], groups: '' }));
  await createWorkflow(f.core, gatewayWorkflow('broken', 'script:broken.sh', { args: {} }));
  await discover();
});
after(() => f.close());

test('a discovered script runs inside a job with its incoming args and hands on the result', async () => {
  const before = f.sim.calls.length;
  const id = await startJob(f.core, 'hello', { args: { device: 'r1' } });
  const done = await job(f.core, id);
  assert.equal(done.status, 'complete', JSON.stringify(done.error));
  assert.deepEqual(done.variables['result'], { status: 'success', return_code: 0, stdout: 'scripts hello.py ran with {"device":"r1"}', stderr: '', args: { device: 'r1' } });
  const run = f.sim.calls.slice(before).find((c) => c.path === '/api/v2.0/scripts/hello.py/execute');
  assert.ok(run?.authorized);
  assert.deepEqual(run.body, { args: { device: 'r1' } });
});

test('a playbook task passes hosts along; an empty groups field is left out', async () => {
  const done = await job(f.core, await startJob(f.core, 'backup'));
  assert.equal(done.status, 'complete', JSON.stringify(done.error));
  const call = f.sim.calls.findLast((c) => c.path === '/api/v2.0/playbooks/backup.yml/execute');
  assert.deepEqual(call?.body, { args: { tag: 'nightly' }, hosts: ['r1', 'r2'] });
});

test('an action that fails on the gateway ends its task in error with the gateway answer', async () => {
  const done = await job(f.core, await startJob(f.core, 'broken'));
  assert.equal(done.status, 'error');
  assert.equal(done.tasks['a1b2']?.status, 'error');
  const entry = done.error.find((e) => e.task === 'a1b2');
  // The engine keeps error entries as text: the gateway's answer as JSON.
  assert.deepEqual(JSON.parse(String(entry?.message)), { status: 'failure', return_code: 1, stdout: '', stderr: 'scripts broken.sh failed', args: {} });
});

test('a call the gateway refuses ends the task in error naming the adapter and its reason', async () => {
  const done = await job(f.core, await startJob(f.core, 'hello', { args: {} }));
  assert.equal(done.status, 'error');
  const entry = done.error.find((e) => e.task === 'a1b2');
  assert.match(String(entry?.message), /^The gateway adapter "lab gateway" at .* answered 400 to running script hello\.py: args\.device required by hello\.py$/);
});

test('bad incoming values end the task in error before any call', async () => {
  await createWorkflow(f.core, gatewayWorkflow('bad-hosts', 'playbook:backup.yml', { args: {}, hosts: 'r1' }));
  const before = f.sim.calls.length;
  const done = await job(f.core, await startJob(f.core, 'bad-hosts'));
  assert.equal(done.status, 'error');
  assert.equal(done.error.find((e) => e.task === 'a1b2')?.message, 'hosts must be an array of strings');
  assert.equal(f.sim.calls.length, before);
});

test('once one adapter is undiscovered its tasks are no longer available, until discovered again', async () => {
  assert.equal((await f.core.request(adapterPath('lab gateway'), { method: 'DELETE' })).status, 200);
  const gone = await job(f.core, await startJob(f.core, 'hello', { args: { device: 'r1' } }));
  assert.equal(gone.status, 'error');
  assert.equal(gone.error.find((e) => e.task === 'a1b2')?.message, 'No task lab gateway.script:hello.py is available');
  await discover();
  const back = await job(f.core, await startJob(f.core, 'hello', { args: { device: 'r2' } }));
  assert.equal(back.status, 'complete', JSON.stringify(back.error));
});

test('once all are undiscovered no gateway task is available', async () => {
  assert.equal((await f.core.request('/ag-manager/actions', { method: 'DELETE' })).status, 200);
  for (const wf of ['hello', 'backup']) {
    const done = await job(f.core, await startJob(f.core, wf, { args: { device: 'r1' } }));
    assert.equal(done.status, 'error');
    assert.match(String(done.error.find((e) => e.task === 'a1b2')?.message), /^No task lab gateway\.(script:hello\.py|playbook:backup\.yml) is available$/);
  }
});

test('a task of a gateway that became unreachable ends in error naming it', async () => {
  await discover();
  await f.sim.close();
  const done = await job(f.core, await startJob(f.core, 'hello', { args: { device: 'r1' } }));
  assert.equal(done.status, 'error');
  assert.match(String(done.error.find((e) => e.task === 'a1b2')?.message), /^The gateway adapter "lab gateway" at .* is unreachable \((ECONNREFUSED|ECONNRESET)\)$/);
});
