/**
 * `forEach` (deprecated on the platform, still accepted): hands out the items
 * of `data_array` one run at a time.
 *
 * Contract with the engine: the handler keeps no state of its own. It reads
 * where it is from its own previous outgoing value `__forEachIndex`
 * (`ctx.taskOutputs[ctx.taskKey].__forEachIndex`), so the engine must store
 * the task's full `outgoing` object there, undeclared keys included, and must
 * run the task again when a `loop` transition path leads back to it.
 * - next index = previous `__forEachIndex` + 1, or 0 when there is none (or
 *   it is not an integer ≥ -1);
 * - while the index is inside `data_array`: finish `loop` with outgoing
 *   `{current_item: data_array[index], __forEachIndex: index}`;
 * - after the last item (or for an empty array): finish `success` with
 *   `{current_item: null, __forEachIndex: -1}`, so a later pass over the
 *   same task (an outer loop) starts again at 0.
 *
 * A data_array that is not an array throws a TaskError; the engine turns it
 * into an `error` outcome with that message.
 */
import { TaskError } from '../types.ts';
import type { TaskHandler } from '../types.ts';
import { ownValue, pureTask, undefinedToNull } from './shared.ts';

export const FOR_EACH_INDEX = '__forEachIndex';

function previousIndex(previous: unknown): number {
  return typeof previous === 'number' && Number.isInteger(previous) && previous >= -1 ? previous : -1;
}

export const forEach: TaskHandler = pureTask({
  name: 'forEach',
  type: 'automatic',
  incoming: ['data_array'],
  outgoing: ['current_item'],
  run(ctx) {
    const items = ctx.incoming['data_array'];
    if (!Array.isArray(items)) throw new TaskError('data_array must be an array');
    const index = previousIndex(ownValue(ownValue(ctx.taskOutputs, ctx.taskKey), FOR_EACH_INDEX)) + 1;
    if (index >= items.length) return { finishState: 'success', outgoing: { current_item: null, [FOR_EACH_INDEX]: -1 } };
    return { finishState: 'loop', outgoing: { current_item: undefinedToNull(items[index]), [FOR_EACH_INDEX]: index } };
  },
});
