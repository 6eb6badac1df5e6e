/**
 * `push`: appends `item_to_push` to the array in the job variable named by
 * `job_variable` (a missing or null one becomes `[item]`), through
 * `setJobVariables`. No outgoing values; finishes `success`.
 *
 * A variable holding something other than an array throws a TaskError; the
 * engine turns it into an `error` outcome with that message.
 */
import type { TaskHandler } from '../types.ts';
import { readJobArray } from './job-array.ts';
import { pureTask, undefinedToNull } from './shared.ts';

export const push: TaskHandler = pureTask({
  name: 'push',
  type: 'operation',
  incoming: ['job_variable', 'item_to_push'],
  outgoing: [],
  run(ctx) {
    const { name, items } = readJobArray(ctx);
    const item = undefinedToNull(ctx.incoming['item_to_push']);
    return { finishState: 'success', outgoing: {}, setJobVariables: { [name]: [...items, item] } };
  },
});
