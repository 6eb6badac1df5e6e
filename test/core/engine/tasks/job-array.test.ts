/** push, pop and shift change an array job variable through setJobVariables. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pop } from '../../../../core/src/engine/tasks/pop.ts';
import { push } from '../../../../core/src/engine/tasks/push.ts';
import { shift } from '../../../../core/src/engine/tasks/shift.ts';
import { assertTaskError, run } from './context.ts';

test('push appends to an existing array without changing the job view', async () => {
  const list = [1, 2];
  const outcome = await run(push, { jobVariables: { list }, incoming: { job_variable: 'list', item_to_push: { n: 3 } } });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: {}, setJobVariables: { list: [1, 2, { n: 3 }] } });
  assert.deepEqual(list, [1, 2], 'the job variables it was given are read-only');
});

test('push onto a missing or null variable creates [item]; an undefined item is null', async () => {
  assert.deepEqual((await run(push, { incoming: { job_variable: 'fresh', item_to_push: 'x' } })).setJobVariables, { fresh: ['x'] });
  assert.deepEqual((await run(push, { jobVariables: { n: null }, incoming: { job_variable: 'n', item_to_push: 'x' } })).setJobVariables, { n: ['x'] });
  assert.deepEqual((await run(push, { incoming: { job_variable: 'fresh' } })).setJobVariables, { fresh: [null] });
});

test('pop removes the last item and shift the first', async () => {
  const jobVariables = { list: ['a', 'b', 'c'] };
  assert.deepEqual(await run(pop, { jobVariables, incoming: { job_variable: 'list' } }), { finishState: 'success', outgoing: { item: 'c' }, setJobVariables: { list: ['a', 'b'] } });
  assert.deepEqual(await run(shift, { jobVariables, incoming: { job_variable: 'list' } }), { finishState: 'success', outgoing: { item: 'a' }, setJobVariables: { list: ['b', 'c'] } });
  assert.deepEqual(jobVariables.list, ['a', 'b', 'c']);
});

test('pop and shift of an empty or missing array give null and write nothing', async () => {
  for (const handler of [pop, shift]) {
    assert.deepEqual(await run(handler, { jobVariables: { list: [] }, incoming: { job_variable: 'list' } }), { finishState: 'success', outgoing: { item: null } });
    assert.deepEqual(await run(handler, { incoming: { job_variable: 'list' } }), { finishState: 'success', outgoing: { item: null } });
  }
});

test('push, pop and shift refuse a non-array variable and a bad job_variable', async () => {
  for (const handler of [push, pop, shift]) {
    await assertTaskError(handler, { jobVariables: { s: 'text' }, incoming: { job_variable: 's', item_to_push: 1 } }, /^job variable "s" \(job_variable\) must hold an array, not string$/);
    await assertTaskError(handler, { jobVariables: { o: { 0: 1 } }, incoming: { job_variable: 'o' } }, /must hold an array, not object/);
    await assertTaskError(handler, { incoming: {} }, /^job_variable must be a non-empty string$/);
    await assertTaskError(handler, { incoming: { job_variable: 'a.b' } }, /^job_variable must be a plain variable name/);
    await assertTaskError(handler, { incoming: { job_variable: '__proto__' } }, /^job_variable must be a plain variable name/);
  }
});
