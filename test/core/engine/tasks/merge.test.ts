/** merge builds one object from job variables, literals and task outputs. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { merge } from '../../../../core/src/engine/tasks/merge.ts';
import { assertTaskError, run } from './context.ts';

const sources = { jobVariables: { host: 'r1', list: [1] }, taskOutputs: { b2: { result: { ok: true } } } };

test('merge resolves job, static and task-output values', async () => {
  const outcome = await run(merge, {
    ...sources,
    incoming: {
      data_to_merge: [
        { key: 'host', value: { task: 'job', variable: 'host' } },
        { key: 'port', value: { task: 'static', variable: 22 } },
        { key: 'result', value: { task: 'b2', variable: 'result' } },
      ],
    },
  });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { merged_object: { host: 'r1', port: 22, result: { ok: true } } } });
});

test('merge gives null for values that cannot be found, and a later key wins', async () => {
  const outcome = await run(merge, {
    ...sources,
    incoming: {
      data_to_merge: [
        { key: 'x', value: { task: 'job', variable: 'nope' } },
        { key: 'y', value: { task: 'ffff', variable: 'result' } },
        { key: 'z', value: { task: 'job', variable: 'toString' } },
        { key: 'x', value: { task: 'static', variable: 'second' } },
      ],
    },
  });
  assert.deepEqual(outcome.outgoing, { merged_object: { x: 'second', y: null, z: null } });
});

test('merge refuses fewer than two entries and malformed entries', async () => {
  const one = [{ key: 'a', value: { task: 'static', variable: 1 } }];
  const ok = { key: 'b', value: { task: 'static', variable: 2 } };
  await assertTaskError(merge, { incoming: { data_to_merge: one } }, /^data_to_merge must be an array of at least 2 entries$/);
  await assertTaskError(merge, { incoming: {} }, /^data_to_merge must be an array/);
  await assertTaskError(merge, { incoming: { data_to_merge: [ok, 'x'] } }, /^data_to_merge\[1\] must be an object/);
  await assertTaskError(merge, { incoming: { data_to_merge: [ok, { value: ok.value }] } }, /^data_to_merge\[1\]\.key must be a non-empty string$/);
  await assertTaskError(merge, { incoming: { data_to_merge: [ok, { key: '__proto__', value: ok.value }] } }, /must not be "__proto__"/);
  await assertTaskError(merge, { incoming: { data_to_merge: [ok, { key: 'c', value: 3 }] } }, /^data_to_merge\[1\]\.value must be an object/);
  await assertTaskError(merge, { incoming: { data_to_merge: [ok, { key: 'c', value: { variable: 'x' } }] } }, /^data_to_merge\[1\]\.value\.task must be/);
  await assertTaskError(merge, { incoming: { data_to_merge: [ok, { key: 'c', value: { task: 'job', variable: 5 } }] } }, /^data_to_merge\[1\]\.value must name a variable/);
});
