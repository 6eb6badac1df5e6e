/**
 * `delay`: waits `time` seconds (a number ≥ 0, or a string spelling one, as
 * form inputs arrive), then finishes `success` with outgoing
 * `time_in_milliseconds`.
 *
 * The platform types it `operation` (seen in real job documents), not
 * `automatic`. When `ctx.signal` aborts (job canceled, process stopping) the
 * wait ends at once with an `error` outcome rather than a rejection, so the
 * engine records why the task stopped. Bad input throws a TaskError; the
 * engine turns it into an `error` outcome with that message.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { INSIDE_STORE, TaskError } from '../types.ts';
import type { TaskHandler, TaskOutcome } from '../types.ts';

/** Node fires longer timers at once (with a warning), so long delays wait in slices. */
const MAX_TIMER_MS = 2_147_483_647;

function readSeconds(value: unknown): number {
  const seconds = typeof value === 'string' && value.trim().length > 0 ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
    throw new TaskError('time must be a number of seconds, 0 or more');
  }
  return seconds;
}

const ABORTED: TaskOutcome = { finishState: 'error', outgoing: {}, error: 'delay was aborted before it ended' };

export const delay: TaskHandler = {
  name: 'delay',
  app: 'WorkFlowEngine',
  type: 'operation',
  reach: INSIDE_STORE,
  incoming: ['time'],
  outgoing: ['time_in_milliseconds'],
  async run(ctx) {
    const ms = Math.round(readSeconds(ctx.incoming['time']) * 1000);
    if (ctx.signal.aborted) return ABORTED;
    try {
      for (let left = ms; left > 0; left -= MAX_TIMER_MS) {
        await sleep(Math.min(left, MAX_TIMER_MS), undefined, { signal: ctx.signal });
      }
    } catch (err) {
      if (ctx.signal.aborted) return ABORTED;
      throw err;
    }
    return { finishState: 'success', outgoing: { time_in_milliseconds: ms } };
  },
};
