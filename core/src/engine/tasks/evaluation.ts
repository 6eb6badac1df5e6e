/**
 * `evaluation`: compares operand pairs in groups and branches on the result.
 *
 * Incoming `all_true_flag` joins the groups (true: every group must hold;
 * false: one is enough; default true); each group's own `all_true_flag` joins
 * its `evaluations` the same way. Operands are `{task, variable}` read like
 * merge's: a job variable, a literal (`static`) or an earlier task's output.
 * Operators are listed in evaluation-operators.ts.
 *
 * Outgoing `return_value` (boolean); finish `success` when true, `failure`
 * when false. Every evaluation is checked even when the result is already
 * decided, so a broken one is reported on every run, not only on some paths.
 * Bad input (unknown operator, operands that cannot be ordered) throws a
 * TaskError; the engine turns it into an `error` outcome with that message.
 */
import { TaskError } from '../types.ts';
import type { TaskContext, TaskHandler } from '../types.ts';
import { compare, isOperator, OPERATORS } from './evaluation-operators.ts';
import { optionalBoolean, pureTask, resolveReference } from './shared.ts';
import { isPlainObject } from '../../../../kernel/index.ts';

function operand(ctx: TaskContext, value: unknown, where: string): unknown {
  if (!isPlainObject(value)) throw new TaskError(`${where} must be an object {task, variable}`);
  return resolveReference(ctx, value['task'], value['variable'], where);
}

function join(results: readonly boolean[], allTrue: boolean): boolean {
  return allTrue ? results.every(Boolean) : results.some(Boolean);
}

function evaluateGroup(ctx: TaskContext, group: unknown, where: string): boolean {
  if (!isPlainObject(group)) throw new TaskError(`${where} must be an object {all_true_flag, evaluations}`);
  const allTrue = optionalBoolean(group, 'all_true_flag', true, `${where}.all_true_flag`);
  const evaluations = group['evaluations'];
  if (!Array.isArray(evaluations) || evaluations.length === 0) throw new TaskError(`${where}.evaluations must be a non-empty array`);
  const results = evaluations.map((evaluation: unknown, i) => {
    const at = `${where}.evaluations[${i}]`;
    if (!isPlainObject(evaluation)) throw new TaskError(`${at} must be an object {operand_1, operator, operand_2}`);
    const operator = evaluation['operator'];
    if (!isOperator(operator)) throw new TaskError(`${at}.operator ${JSON.stringify(operator) ?? 'undefined'} is not one of ${OPERATORS.join(' ')}`);
    const a = operand(ctx, evaluation['operand_1'], `${at}.operand_1`);
    const b = operand(ctx, evaluation['operand_2'], `${at}.operand_2`);
    try {
      return compare(operator, a, b);
    } catch (err) {
      if (err instanceof TaskError) throw new TaskError(`${at}: ${err.message}`);
      throw err;
    }
  });
  return join(results, allTrue);
}

export const evaluation: TaskHandler = pureTask({
  name: 'evaluation',
  type: 'automatic',
  incoming: ['all_true_flag', 'evaluation_groups'],
  outgoing: ['return_value'],
  run(ctx) {
    const allTrue = optionalBoolean(ctx.incoming, 'all_true_flag', true);
    const groups = ctx.incoming['evaluation_groups'];
    if (!Array.isArray(groups) || groups.length === 0) throw new TaskError('evaluation_groups must be a non-empty array');
    const results = groups.map((group: unknown, i) => evaluateGroup(ctx, group, `evaluation_groups[${i}]`));
    const value = join(results, allTrue);
    return { finishState: value ? 'success' : 'failure', outgoing: { return_value: value } };
  },
});
