/** transformation runs through the engine's service; its failures are an error finish state. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { transformation } from '../../../../core/src/engine/tasks/transformation.ts';
import { assertTaskError, fakeServices, run } from './context.ts';

test('transformation passes id, variableMap and options and hands on the result', async () => {
  const services = fakeServices({ transformation: (id, incoming) => ({ id, doubled: Number(incoming['n']) * 2 }) });
  const outcome = await run(transformation, { services, incoming: { tr_id: 'tr9', variableMap: { n: 4 }, options: { extractOutput: true } } });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { output: { id: 'tr9', doubled: 8 } } });
  assert.deepEqual(services.transformationCalls, [{ id: 'tr9', incoming: { n: 4 }, options: { extractOutput: true } }]);
});

test('transformation defaults a missing variableMap and options to empty objects', async () => {
  const services = fakeServices({ transformation: () => 'ok' });
  await run(transformation, { services, incoming: { tr_id: 'tr9', variableMap: '', options: '' } });
  assert.deepEqual(services.transformationCalls, [{ id: 'tr9', incoming: {}, options: {} }]);
});

test('transformation failures end in error with the message', async () => {
  const services = fakeServices({
    transformation: () => {
      throw new Error('Transformation tr9 not found');
    },
  });
  assert.deepEqual(await run(transformation, { services, incoming: { tr_id: 'tr9', variableMap: {} } }), { finishState: 'error', outgoing: {}, error: 'Transformation tr9 not found' });
});

test('transformation refuses bad input', async () => {
  await assertTaskError(transformation, { incoming: { variableMap: {} } }, /^tr_id must be a non-empty string$/);
  await assertTaskError(transformation, { incoming: { tr_id: 'x', variableMap: [1] } }, /^variableMap must be an object$/);
  await assertTaskError(transformation, { incoming: { tr_id: 'x', options: 'fast' } }, /^options must be an object$/);
  await assertTaskError(transformation, { incoming: { tr_id: 'x', options: { extractOutput: 'yes' } } }, /^options\.extractOutput must be true or false$/);
});
