/**
 * Task iteration ids (core/src/engine/iteration-id.ts): UUIDs of version 7,
 * which every route taking a task id accepts, growing with time within the
 * process, however many are made in one millisecond.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Joi from 'joi';
import { newIterationId } from '../../../core/src/engine/iteration-id.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('an iteration id is a version-7 UUID carrying the time it was made, and the task routes take it', () => {
  const now = Date.UTC(2026, 10, 27, 12, 0, 0);
  const id = newIterationId(now + 10_000_000);
  assert.match(id, V7);
  assert.equal(parseInt(id.slice(0, 8) + id.slice(9, 13), 16), now + 10_000_000);
  // The same check the task routes make of a task document id (operations-manager/control-routes.ts).
  assert.equal(Joi.string().guid().validate(id).error, undefined);
});

test('ids made in one millisecond, even past the 4,096 its counter holds, and when the clock steps back, still grow and never repeat', () => {
  const now = Date.now() + 20_000_000;
  const ids = Array.from({ length: 10_000 }, () => newIterationId(now));
  ids.push(newIterationId(now - 5_000));
  const sorted = [...ids].sort();
  assert.deepEqual(sorted, ids, 'in the order they were made');
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.every((id) => V7.test(id)));
});
