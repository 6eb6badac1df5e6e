/**
 * `shift`: removes the first item of the array in the job variable named by
 * `job_variable`, through `setJobVariables`. Outgoing `item`: the removed
 * item, or null when the array is empty or the variable missing (then
 * nothing is written). Finishes `success`.
 *
 * A variable holding something other than an array throws a TaskError; the
 * engine turns it into an `error` outcome with that message.
 */
import { INSIDE_STORE } from '../types.ts';
import type { TaskHandler } from '../types.ts';
import { readJobArray } from './job-array.ts';

export const shift: TaskHandler = {
  name: 'shift',
  app: 'WorkFlowEngine',
  type: 'operation',
  reach: INSIDE_STORE,
  incoming: ['job_variable'],
  outgoing: ['item'],
  pure: true,
  run(ctx) {
    const { name, items } = readJobArray(ctx);
    if (items.length === 0) return { finishState: 'success', outgoing: { item: null } };
    return { finishState: 'success', outgoing: { item: items[0] ?? null }, setJobVariables: { [name]: items.slice(1) } };
  },
};
