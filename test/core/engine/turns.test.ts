/**
 * The engine's turn queue (core/src/engine/turns.ts): one piece of work per
 * turn of the event loop, oldest first, and a queue per engine, made by the
 * app, so one core's flood of slices never delays another's in the same process.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TurnQueue } from '../../../core/src/engine/turns.ts';

test('work waits its turn oldest first, and other callbacks run between any two pieces', async () => {
  const queue = new TurnQueue();
  const log: string[] = [];
  const done = [1, 2, 3].map((n) => queue.next().then(() => log.push(`work ${n}`)));
  setImmediate(() => log.push('io'));
  await Promise.all(done);
  assert.deepEqual(log, ['work 1', 'io', 'work 2', 'work 3']);
  assert.equal(queue.length, 0);
});

test("one queue's backlog does not delay work on another queue", async () => {
  const flooded = new TurnQueue();
  const other = new TurnQueue();
  const log: string[] = [];
  const flood = Array.from({ length: 100 }, (_, i) => flooded.next().then(() => log.push(`flood ${i}`)));
  await other.next().then(() => log.push('other'));
  // With one queue for the process, `other` would come after all hundred.
  assert.ok(log.indexOf('other') <= 1, `other ran after ${log.indexOf('other')} pieces of the flood`);
  await Promise.all(flood);
});
