/** delay waits, reports the milliseconds, and stops promptly when aborted. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { delay } from '../../../../core/src/engine/tasks/delay.ts';
import { assertTaskError, run } from './context.ts';

test('delay waits the given seconds and reports them in milliseconds', async () => {
  const started = performance.now();
  const outcome = await run(delay, { incoming: { time: 0.01 } });
  assert.ok(performance.now() - started >= 9, 'it waited');
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { time_in_milliseconds: 10 } });
  assert.deepEqual(await run(delay, { incoming: { time: '0' } }), { finishState: 'success', outgoing: { time_in_milliseconds: 0 } });
});

test('delay ends promptly with an error outcome when the job is aborted', async () => {
  const controller = new AbortController();
  const started = performance.now();
  const pending = run(delay, { incoming: { time: 60 }, signal: controller.signal });
  setTimeout(() => controller.abort(), 10);
  const outcome = await pending;
  assert.ok(performance.now() - started < 2000, 'it did not wait the full minute');
  assert.deepEqual(outcome, { finishState: 'error', outgoing: {}, error: 'delay was aborted before it ended' });
});

test('delay on an already aborted signal does not wait', async () => {
  const outcome = await run(delay, { incoming: { time: 60 }, signal: AbortSignal.abort() });
  assert.equal(outcome.finishState, 'error');
});

test('delay refuses a time that is not a number of seconds of 0 or more', async () => {
  for (const time of [undefined, null, -1, 'soon', '', Number.NaN, Number.POSITIVE_INFINITY, { s: 1 }]) {
    await assertTaskError(delay, { incoming: { time } }, /^time must be a number of seconds, 0 or more$/);
  }
});
