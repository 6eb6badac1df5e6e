/** forEach hands out one item per run, tracking its place in its own previous outgoing values. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEach } from '../../../../core/src/engine/tasks/for-each.ts';
import type { TaskOutcome } from '../../../../core/src/engine/types.ts';
import { assertTaskError, run } from './context.ts';

test('forEach loops over every item, then succeeds and resets', async () => {
  const data_array = ['a', { b: 1 }, 'c'];
  const seen: TaskOutcome[] = [];
  let previous: Record<string, unknown> | undefined;
  for (let i = 0; i < 5; i++) {
    const outcome = await run(forEach, { taskKey: 'f1', incoming: { data_array }, taskOutputs: previous === undefined ? {} : { f1: previous } });
    seen.push(outcome);
    previous = outcome.outgoing;
  }
  assert.deepEqual(seen, [
    { finishState: 'loop', outgoing: { current_item: 'a', __forEachIndex: 0 } },
    { finishState: 'loop', outgoing: { current_item: { b: 1 }, __forEachIndex: 1 } },
    { finishState: 'loop', outgoing: { current_item: 'c', __forEachIndex: 2 } },
    { finishState: 'success', outgoing: { current_item: null, __forEachIndex: -1 } },
    { finishState: 'loop', outgoing: { current_item: 'a', __forEachIndex: 0 } },
  ]);
});

test('forEach reads only its own task output and starts over on a missing or odd index', async () => {
  const data_array = ['a', 'b'];
  const other = await run(forEach, { taskKey: 'f1', incoming: { data_array }, taskOutputs: { f2: { __forEachIndex: 0 } } });
  assert.deepEqual(other.outgoing, { current_item: 'a', __forEachIndex: 0 });
  for (const odd of ['0', 0.5, -7, null]) {
    const outcome = await run(forEach, { taskKey: 'f1', incoming: { data_array }, taskOutputs: { f1: { __forEachIndex: odd } } });
    assert.deepEqual(outcome.outgoing, { current_item: 'a', __forEachIndex: 0 }, String(odd));
  }
});

test('forEach over an empty array succeeds at once; an undefined item is null', async () => {
  assert.deepEqual(await run(forEach, { incoming: { data_array: [] } }), { finishState: 'success', outgoing: { current_item: null, __forEachIndex: -1 } });
  assert.deepEqual((await run(forEach, { incoming: { data_array: [undefined] } })).outgoing, { current_item: null, __forEachIndex: 0 });
});

test('forEach refuses a data_array that is not an array', async () => {
  for (const data_array of [undefined, 'abc', { 0: 'a' }]) {
    await assertTaskError(forEach, { incoming: { data_array } }, /^data_array must be an array$/);
  }
});
