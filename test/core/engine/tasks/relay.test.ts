/** restAction and restQuery relay to an orchestrator adapter; relay failures are an error finish state. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { orchestratorManagerRestAction, restAction } from '../../../../core/src/engine/tasks/rest-action.ts';
import { orchestratorManagerRestQuery, restQuery } from '../../../../core/src/engine/tasks/rest-query.ts';
import { assertTaskError, fakeServices, run } from './context.ts';

test('restAction relays params and body and hands on the result', async () => {
  const services = fakeServices({ relay: (kind, adapterId) => ({ kind, adapterId, ok: true }) });
  const outcome = await run(restAction, { services, incoming: { adapterId: 'nso1', params: { path: '/a' }, body: { x: 1 } } });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { result: { kind: 'restAction', adapterId: 'nso1', ok: true } } });
  assert.deepEqual(services.relayCalls, [{ kind: 'restAction', adapterId: 'nso1', body: { params: { path: '/a' }, body: { x: 1 } } }]);
  assert.equal(restAction.app, 'NSOManager');
});

test('the tasks are NSOManager tasks, also registered under the earlier OrchestratorManager name', async () => {
  assert.deepEqual([restAction.app, restQuery.app], ['NSOManager', 'NSOManager']);
  assert.deepEqual([orchestratorManagerRestAction.app, orchestratorManagerRestQuery.app], ['OrchestratorManager', 'OrchestratorManager']);
  for (const [alias, original] of [[orchestratorManagerRestAction, restAction], [orchestratorManagerRestQuery, restQuery]] as const) {
    assert.equal(alias.name, original.name);
    assert.deepEqual(alias.incoming, original.incoming);
    assert.deepEqual(alias.outgoing, original.outgoing);
  }
  const services = fakeServices({ relay: () => [{ result: '204' }] });
  const outcome = await run(orchestratorManagerRestAction, { services, incoming: { adapterId: 'nso1', params: { path: '/a' }, body: {} } });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { result: [{ result: '204' }] } });
  assert.deepEqual(services.relayCalls, [{ kind: 'restAction', adapterId: 'nso1', body: { params: { path: '/a' }, body: {} } }]);
});

test('restQuery relays only params', async () => {
  const services = fakeServices({ relay: () => [{ instance_data: {} }] });
  const outcome = await run(restQuery, { services, incoming: { adapterId: 'nso1', params: { path: '/q' }, body: { ignored: true } } });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { result: [{ instance_data: {} }] } });
  assert.deepEqual(services.relayCalls, [{ kind: 'restQuery', adapterId: 'nso1', body: { params: { path: '/q' } } }]);
  assert.deepEqual(restQuery.incoming, ['adapterId', 'params']);
});

test('relay failures end in error, keeping an adapter error object as it is', async () => {
  assert.deepEqual(await run(restAction, { services: fakeServices(), incoming: { adapterId: 'nso1', params: {} } }), { finishState: 'error', outgoing: {}, error: 'relay is not available' });
  const adapterError = { code: 502, message: { apiVersion: '1', error: 'unreachable' } };
  const services = fakeServices({
    relay: () => {
      throw adapterError;
    },
  });
  assert.deepEqual(await run(restQuery, { services, incoming: { adapterId: 'nso1' } }), { finishState: 'error', outgoing: {}, error: adapterError });
});

test('relay tasks refuse bad input', async () => {
  for (const handler of [restAction, restQuery]) {
    await assertTaskError(handler, { incoming: { params: {} } }, /^adapterId must be a non-empty string$/);
    await assertTaskError(handler, { incoming: { adapterId: 'a', params: 'x' } }, /^params must be an object$/);
  }
  await assertTaskError(restAction, { incoming: { adapterId: 'a', body: [1] } }, /^body must be an object$/);
});
