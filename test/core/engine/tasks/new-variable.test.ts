/** newVariable sets one job variable and echoes the value. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newVariable } from '../../../../core/src/engine/tasks/new-variable.ts';
import { assertTaskError, run } from './context.ts';

test('newVariable sets the job variable and hands the value on', async () => {
  const outcome = await run(newVariable, { incoming: { name: 'color', value: { r: 1 } } });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { value: { r: 1 } }, setJobVariables: { color: { r: 1 } } });
});

test('newVariable stores a missing value as null', async () => {
  const outcome = await run(newVariable, { incoming: { name: 'empty' } });
  assert.deepEqual(outcome.setJobVariables, { empty: null });
  assert.equal(outcome.outgoing['value'], null);
});

test('newVariable refuses a name that is not a plain variable name', async () => {
  await assertTaskError(newVariable, { incoming: { value: 1 } }, /^name must be a non-empty string$/);
  await assertTaskError(newVariable, { incoming: { name: 7, value: 1 } }, /^name must be a non-empty string$/);
  for (const bad of ['a.b', '$var', '__proto__', 'constructor']) {
    await assertTaskError(newVariable, { incoming: { name: bad, value: 1 } }, /name must be a plain variable name/);
  }
});
