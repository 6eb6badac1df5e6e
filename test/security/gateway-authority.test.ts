/**
 * Automation-gateway actions run as workflow tasks with their job's authority
 * (issue 26, part 2): the gateway manager's routes are admin-only, so an
 * account without `AGManager.admin` cannot run a script on a gateway by
 * starting a workflow that names it. The gateway stand-in (tools/ag-sim)
 * records every call, so "never called" is read from it after `idle()`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterPath, startGatewayFixture } from '../core/ag-manager/fixture.ts';
import type { GatewayFixture } from '../core/ag-manager/fixture.ts';
import { account, chain, errorText, saveWorkflow, send, startedId, storedJob } from './authority-fixture.ts';

let f: GatewayFixture;

before(async () => {
  f = await startGatewayFixture();
  assert.equal((await f.core.request(adapterPath('lab gateway'))).status, 200);
  const hello = { name: 'script:hello.py', app: 'lab gateway', type: 'automatic', location: 'Adapter', variables: { incoming: { args: { device: 'r1' } }, outgoing: { result: '$var.job.result' } } };
  await saveWorkflow(f.core, chain('gateway hello', { a1b2: hello }));
});
after(() => f.close());

const executes = (from: number): number => f.sim.calls.slice(from).filter((c) => c.path.endsWith('/execute')).length;

test('an operator refused the gateway manager over HTTP cannot run a gateway script through a workflow', async () => {
  const operator = await account(f.core, 'gateway-operator', [['OperationsManager', 'operations']]);
  assert.equal((await send(f.core, 'GET', adapterPath('lab gateway'), undefined, operator.token)).status, 403);
  const from = f.sim.calls.length;
  const job = await storedJob(f.core, startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'gateway hello' }, operator.token)));
  assert.equal(job.status, 'error');
  assert.match(errorText(job), /gateway-operator, who holds no role that allows AGManager\.discoverModules; it needs one of the roles AGManager\.admin/);
  assert.equal(executes(from), 0, 'the gateway was never asked to run anything');
});

test('a holder of the gateway manager role runs the same workflow to completion', async () => {
  const engineer = await account(f.core, 'gateway-engineer', [['OperationsManager', 'operations'], ['AGManager', 'admin']]);
  const from = f.sim.calls.length;
  const job = await storedJob(f.core, startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'gateway hello' }, engineer.token)));
  assert.equal(job.status, 'complete', errorText(job));
  assert.equal(executes(from), 1);
});
