/** evaluation compares operands in groups: success when true, failure when false. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluation } from '../../../../core/src/engine/tasks/evaluation.ts';
import { assertTaskError, run } from './context.ts';
import type { ContextInit } from './context.ts';

const lit = (variable: unknown) => ({ task: 'static', variable });
const check = (a: unknown, operator: string, b: unknown) => ({ operand_1: lit(a), operator, operand_2: lit(b) });

async function single(a: unknown, operator: string, b: unknown): Promise<boolean> {
  const outcome = await run(evaluation, { incoming: { all_true_flag: true, evaluation_groups: [{ all_true_flag: true, evaluations: [check(a, operator, b)] }] } });
  assert.equal(outcome.finishState, outcome.outgoing['return_value'] === true ? 'success' : 'failure');
  return outcome.outgoing['return_value'] as boolean;
}

test('evaluation true is success with return_value true, false is failure with return_value false', async () => {
  const groups = (op: string) => [{ all_true_flag: true, evaluations: [check(1, op, 1)] }];
  assert.deepEqual(await run(evaluation, { incoming: { all_true_flag: true, evaluation_groups: groups('==') } }), { finishState: 'success', outgoing: { return_value: true } });
  assert.deepEqual(await run(evaluation, { incoming: { all_true_flag: true, evaluation_groups: groups('!=') } }), { finishState: 'failure', outgoing: { return_value: false } });
});

test('evaluation equality compares content and reads numeric and boolean strings as values', async () => {
  assert.equal(await single('a', '==', 'a'), true);
  assert.equal(await single('a', '==', 'b'), false);
  assert.equal(await single(5, '==', '5'), true);
  assert.equal(await single('true', '==', true), true);
  assert.equal(await single({ x: [1, { y: 2 }] }, '==', { x: [1, { y: 2 }] }), true);
  assert.equal(await single({ x: 1 }, '==', { x: 1, y: 2 }), false);
  assert.equal(await single([1, 2], '!=', [2, 1]), true);
  assert.equal(await single(null, '==', null), true);
  assert.equal(await single(0, '==', null), false);
  assert.equal(await single('', '==', 0), false);
});

test('evaluation orders numbers numerically and strings by code unit', async () => {
  assert.equal(await single(2, '<', 10), true);
  assert.equal(await single('2', '<', '10'), true, 'numeric strings compare as numbers');
  assert.equal(await single('b', '>', 'a'), true);
  assert.equal(await single(3, '<=', 3), true);
  assert.equal(await single(3, '>=', 4), false);
  assert.equal(await single(3, '>', 3), false);
});

test('evaluation contains and !contains work on strings and arrays', async () => {
  assert.equal(await single('router-01', 'contains', 'router'), true);
  assert.equal(await single('router-01', 'contains', 1), true);
  assert.equal(await single('router-01', '!contains', 'switch'), true);
  assert.equal(await single(['a', { b: 1 }], 'contains', { b: 1 }), true);
  assert.equal(await single([1, 2], 'contains', '2'), true);
  assert.equal(await single([1, 2], '!contains', 3), true);
  assert.equal(await single([1, 2], '!contains', 2), false);
});

test('evaluation reads operands from job variables and task outputs', async () => {
  const init: ContextInit = {
    jobVariables: { status: 'up' },
    taskOutputs: { c3: { count: 4 } },
    incoming: {
      evaluation_groups: [
        { evaluations: [{ operand_1: { task: 'job', variable: 'status' }, operator: '==', operand_2: lit('up') }, { operand_1: { task: 'c3', variable: 'count' }, operator: '>', operand_2: lit(3) }] },
      ],
    },
  };
  assert.deepEqual(await run(evaluation, init), { finishState: 'success', outgoing: { return_value: true } });
});

test('evaluation all_true_flag joins with and/or at both levels', async () => {
  const yes = check(1, '==', 1);
  const no = check(1, '==', 2);
  const outcome = async (all: boolean, groups: unknown[]) => (await run(evaluation, { incoming: { all_true_flag: all, evaluation_groups: groups } })).outgoing['return_value'];
  assert.equal(await outcome(true, [{ all_true_flag: true, evaluations: [yes, no] }]), false);
  assert.equal(await outcome(true, [{ all_true_flag: false, evaluations: [yes, no] }]), true);
  assert.equal(await outcome(true, [{ all_true_flag: false, evaluations: [yes] }, { all_true_flag: false, evaluations: [no] }]), false);
  assert.equal(await outcome(false, [{ all_true_flag: false, evaluations: [yes] }, { all_true_flag: false, evaluations: [no] }]), true);
  assert.equal(await outcome(false, [{ all_true_flag: true, evaluations: [no] }, { all_true_flag: true, evaluations: [no, yes] }]), false);
});

test('evaluation refuses unknown operators, operands that cannot be compared, and malformed groups', async () => {
  const groups = (evaluations: unknown[]) => ({ incoming: { all_true_flag: true, evaluation_groups: [{ all_true_flag: true, evaluations }] } });
  for (const op of ['===', 'typeof', 'instanceof', '~', undefined]) {
    await assertTaskError(evaluation, groups([check(1, op as string, 1)]), /^evaluation_groups\[0\]\.evaluations\[0\]\.operator .* is not one of == != < <= > >= contains !contains$/);
  }
  // A broken evaluation is reported even when an earlier one already decided an or-group.
  await assertTaskError(evaluation, { incoming: { evaluation_groups: [{ all_true_flag: false, evaluations: [check(1, '==', 1), check(1, 'bogus', 1)] }] } }, /evaluations\[1\]\.operator/);
  await assertTaskError(evaluation, groups([check({ a: 1 }, '<', 2)]), /operator "<" compares two numbers or two strings, not object and number/);
  await assertTaskError(evaluation, groups([check(null, 'contains', 'x')]), /needs a string or an array as operand_1, not null/);
  await assertTaskError(evaluation, groups([check('abc', 'contains', { a: 1 })]), /looks for a string, number or boolean in a string/);
  await assertTaskError(evaluation, groups([{ operand_1: 'x', operator: '==', operand_2: lit(1) }]), /operand_1 must be an object/);
  await assertTaskError(evaluation, groups([]), /^evaluation_groups\[0\]\.evaluations must be a non-empty array$/);
  await assertTaskError(evaluation, { incoming: { evaluation_groups: [] } }, /^evaluation_groups must be a non-empty array$/);
  await assertTaskError(evaluation, { incoming: { all_true_flag: 'true', evaluation_groups: [{ evaluations: [check(1, '==', 1)] }] } }, /^all_true_flag must be true or false$/);
  await assertTaskError(evaluation, { incoming: { evaluation_groups: [{ all_true_flag: 1, evaluations: [check(1, '==', 1)] }] } }, /^evaluation_groups\[0\]\.all_true_flag must be true or false$/);
});
