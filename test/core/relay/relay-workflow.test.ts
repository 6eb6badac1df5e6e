/**
 * The relay inside workflows: a job configures a device through a restAction
 * task and reads it back through a restQuery task, both app NSOManager, on
 * an adapter given by `ADAPTERS`; a refused relay call ends its task in error.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createWorkflow, job, startJob, workflow } from '../../helpers/engine.ts';
import type { RelayFixture } from './fixture.ts';
import { NSO, startRelayFixture, YANG_JSON } from './fixture.ts';

let f: RelayFixture;
before(async () => {
  f = await startRelayFixture();
});
after(() => f.close());

const CE1 = '/restconf/data/tailf-ncs:devices/device=ce1';
const loopback = { name: '7', ip: { address: { primary: { address: '192.0.2.7', mask: '255.255.255.255' } } } };

function relayTask(name: 'restAction' | 'restQuery', incoming: Record<string, unknown>, result: string): Record<string, unknown> {
  return { name, app: 'NSOManager', type: 'automatic', variables: { incoming, outgoing: { result } } };
}

test('a workflow configures a device with restAction and reads it back with restQuery', async () => {
  await createWorkflow(
    f.core,
    workflow(
      'relay configure loopback',
      {
        a1: relayTask('restAction', { adapterId: '$var.job.adapter', params: { path: `${CE1}/config`, accept: YANG_JSON, method: 'PATCH' }, body: '$var.job.config' }, '$var.job.written'),
        b2: relayTask('restQuery', { adapterId: '$var.job.adapter', params: { path: `${CE1}/config/tailf-ned-cisco-ios:interface/Loopback=7`, accept: YANG_JSON } }, '$var.job.readBack'),
      },
      [['workflow_start', 'a1'], ['a1', 'b2'], ['b2', 'workflow_end']],
    ),
  );
  const config = { config: { 'tailf-ned-cisco-ios:interface': { Loopback: [loopback] } } };
  const id = await startJob(f.core, 'relay configure loopback', { adapter: NSO, config });
  const done = await job(f.core, id);
  assert.equal(done.status, 'complete', JSON.stringify(done.error));
  assert.deepEqual(done.variables['written'], [{ result: '204' }]);
  assert.deepEqual(done.variables['readBack'], { instance_data: { 'tailf-ned-cisco-ios:Loopback': [loopback] } });
  const patch = f.sim.requests.find((r) => r.method === 'PATCH');
  assert.ok(patch);
  assert.deepEqual(JSON.parse(patch.body), config);
});

test('a relay task the relay refuses ends in error with the relay\'s message', async () => {
  await createWorkflow(
    f.core,
    workflow(
      'relay unknown adapter',
      { c3: relayTask('restQuery', { adapterId: 'No Such NSO', params: { path: CE1, accept: YANG_JSON } }, '$var.job.readBack') },
      [['workflow_start', 'c3'], ['c3', 'workflow_end']],
    ),
  );
  const failed = await job(f.core, await startJob(f.core, 'relay unknown adapter'));
  assert.equal(failed.tasks['c3']?.finish_state, 'error');
  assert.ok(failed.error.some((e) => e.task === 'c3' && /No adapter named "No Such NSO"/.test(String(e.message))), JSON.stringify(failed.error));

  await createWorkflow(
    f.core,
    workflow(
      'relay path escape',
      { d4: relayTask('restQuery', { adapterId: NSO, params: { path: '/restconf/../secret', accept: YANG_JSON } }, '$var.job.readBack') },
      [['workflow_start', 'd4'], ['d4', 'workflow_end']],
    ),
  );
  const escaped = await job(f.core, await startJob(f.core, 'relay path escape'));
  assert.ok(escaped.error.some((e) => e.task === 'd4' && /body\.params\.path must not contain a \.\. segment/.test(String(e.message))), JSON.stringify(escaped.error));
});
