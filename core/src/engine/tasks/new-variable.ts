/**
 * `newVariable`: sets job variable `name` to `value` and hands the value on
 * as its outgoing `value`.
 *
 * Bad input throws a TaskError; the engine turns any throw or rejection of a
 * handler into an `error` outcome carrying its message.
 */
import type { TaskHandler } from '../types.ts';
import { pureTask, requireVariableName, undefinedToNull } from './shared.ts';

export const newVariable: TaskHandler = pureTask({
  name: 'newVariable',
  type: 'operation',
  incoming: ['name', 'value'],
  outgoing: ['value'],
  run(ctx) {
    const name = requireVariableName(ctx.incoming, 'name');
    const value = undefinedToNull(ctx.incoming['value']);
    return { finishState: 'success', outgoing: { value }, setJobVariables: { [name]: value } };
  },
});
