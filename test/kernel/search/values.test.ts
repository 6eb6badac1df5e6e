/** Values are read by the field's declared type, strictly. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobs, tasks } from '../../../kernel/search/fields.ts';
import { readDate, readValue, ValueError } from '../../../kernel/search/values.ts';

const f = (type: typeof jobs, path: string) => type.fields.get(path)!;

test('dates without an offset are UTC, not local time', () => {
  assert.equal(readDate('2024-05-01T10:00:00'), Date.UTC(2024, 4, 1, 10));
  assert.equal(readDate('2024-05-01'), Date.UTC(2024, 4, 1));
});

test('dates accept fractions, Z, offsets with and without a colon, a lowercase t, and epoch milliseconds', () => {
  assert.equal(readDate('2024-05-01T10:00:00.250Z'), Date.UTC(2024, 4, 1, 10, 0, 0, 250));
  assert.equal(readDate('2024-05-01T12:00:00+02:00'), Date.UTC(2024, 4, 1, 10));
  assert.equal(readDate('2024-05-01T05:30:00-0430'), Date.UTC(2024, 4, 1, 10));
  assert.equal(readDate('2021-11-18t23:59:59'), Date.UTC(2021, 10, 18, 23, 59, 59));
  assert.equal(readDate('1714557600000'), 1714557600000);
  assert.equal(readDate(1714557600000), 1714557600000);
});

test('impossible or malformed dates are refused', () => {
  for (const bad of ['2024-02-30', '2023-02-29', '2024-13-01', '2024-5-1', '2024-05-01T24:00:00', '2024-05-01T10:60:00', '01/05/2024', 'yesterday', '', '2024-05-01T10:00:00+25:00']) {
    assert.throws(() => readDate(bad), ValueError, bad);
  }
  assert.equal(readDate('2024-02-29'), Date.UTC(2024, 1, 29));
});

test('a date field stores epoch milliseconds or an ISO string as its registry says', () => {
  assert.equal(readValue(f(jobs, 'metrics.start_time'), '2024-05-01'), Date.UTC(2024, 4, 1));
  assert.equal(readValue(f(jobs, 'last_updated'), '2024-05-01'), '2024-05-01T00:00:00.000Z');
});

test('numbers follow JSON number syntax only', () => {
  const progress = f(jobs, 'metrics.progress');
  assert.equal(readValue(progress, '0.5'), 0.5);
  assert.equal(readValue(progress, '-2'), -2);
  assert.equal(readValue(progress, '1e3'), 1000);
  for (const bad of ['0x10', '01', 'Infinity', 'NaN', '1,5', ' 1', '', '1e999']) assert.throws(() => readValue(progress, bad), ValueError, bad);
});

test('booleans are exactly true or false', () => {
  const scheduled = f(tasks, 'scheduled');
  assert.equal(readValue(scheduled, 'true'), true);
  assert.equal(readValue(scheduled, 'false'), false);
  for (const bad of ['True', '1', 'yes', '']) assert.throws(() => readValue(scheduled, bad), ValueError, bad);
});

test('object ids are exactly 24 hex characters, lowercased', () => {
  const id = f(jobs, '_id');
  assert.equal(readValue(id, 'ABCDEF0123456789ABCDEF01'), 'abcdef0123456789abcdef01');
  for (const bad of ['Rheumatology', 'abcdef0123456789abcdef0', 'abcdef0123456789abcdef012', 'zzzzzz0123456789abcdef01']) assert.throws(() => readValue(id, bad), ValueError, bad);
});

test('task ids are UUIDs', () => {
  const id = f(tasks, '_id');
  assert.equal(readValue(id, '0A1B2C3D-0000-4000-8000-000000000001'), '0a1b2c3d-0000-4000-8000-000000000001');
  assert.throws(() => readValue(id, 'abcdef0123456789abcdef01'), ValueError);
});

test('strings are taken as written, but never with a NUL character', () => {
  assert.equal(readValue(f(jobs, 'name'), '(a+)+$'), '(a+)+$');
  assert.throws(() => readValue(f(jobs, 'name'), 'a\u0000b'), ValueError);
});
