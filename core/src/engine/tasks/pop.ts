/**
 * `pop`: removes the last item of the array in the job variable named by
 * `job_variable`, through `setJobVariables`. Outgoing `item`: the removed
 * item, or null when the array is empty or the variable missing (then
 * nothing is written). Finishes `success`.
 *
 * A variable holding something other than an array throws a TaskError; the
 * engine turns it into an `error` outcome with that message.
 */
import type { TaskHandler } from '../types.ts';
import { takeTask } from './job-array.ts';

export const pop: TaskHandler = takeTask('pop');
