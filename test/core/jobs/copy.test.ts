/**
 * The engine's copy of a job (core/src/jobs/copy.ts): as deep as
 * structuredClone's, nothing shared with the original, and a `__proto__` key
 * in a job's data copied as data, never as the copy's prototype.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyJson, withFields } from '../../../core/src/jobs/copy.ts';

test('a copy equals the original as structuredClone makes it, and changing the copy leaves the original as it was', () => {
  const original = { _id: 'j', tasks: { a: { status: 'running', iterations: ['i1'], metrics: { start_time: 1 } } }, variables: { list: [1, { deep: [null, true, 'x'] }], none: null }, error: [] };
  const copy = copyJson(original);
  assert.deepEqual(copy, structuredClone(original));
  copy.tasks.a.iterations.push('i2');
  (copy.variables.list[1] as { deep: unknown[] }).deep.push('y');
  copy.tasks.a.metrics.start_time = 2;
  assert.deepEqual(original.tasks.a, { status: 'running', iterations: ['i1'], metrics: { start_time: 1 } });
  assert.deepEqual((original.variables.list[1] as { deep: unknown[] }).deep, [null, true, 'x']);
});

test('a __proto__ key in job data stays a key of the copy, and no copy or object gains a prototype from it', () => {
  const data = JSON.parse('{"variables": {"__proto__": {"polluted": true}, "a": 1}}') as { variables: Record<string, unknown> };
  const copy = copyJson(data);
  assert.equal(Object.getPrototypeOf(copy.variables), Object.prototype);
  assert.ok(Object.hasOwn(copy.variables, '__proto__'));
  assert.deepEqual(Object.getOwnPropertyDescriptor(copy.variables, '__proto__')?.value, { polluted: true });
  assert.equal((copy.variables as { polluted?: unknown }).polluted, undefined);
  assert.equal(({} as { polluted?: unknown }).polluted, undefined);
});

test('a value that is not plain JSON (a Date a caller put in) is copied as structuredClone copies it, not flattened', () => {
  const when = new Date(1_700_000_000_000);
  const copy = copyJson({ when });
  assert.ok(copy.when instanceof Date);
  assert.notEqual(copy.when, when);
  assert.equal(copy.when.getTime(), when.getTime());
});

test('withFields makes what a spread with fields makes: the same keys in the same order, a field given replacing its value in place', () => {
  const base = JSON.parse('{"name":"a","status":"old","7":"index-like","variables":{"x":1}}') as Record<string, unknown>;
  const made = withFields(base, { status: 'new', metrics: { n: 1 } });
  const spread = { ...base, status: 'new', metrics: { n: 1 } };
  assert.deepEqual(Object.keys(made), Object.keys(spread));
  assert.equal(JSON.stringify(made), JSON.stringify(spread));
  assert.equal(made['variables'], base['variables'], 'shallow, as a spread is');
  assert.equal(base['status'], 'old', 'the base is left as it was');
});

test('withFields keeps a __proto__ key of the data or of the fields as data, never as a prototype', () => {
  const base = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
  const fields = JSON.parse('{"__proto__": {"again": true}}') as Record<string, unknown>;
  const made = withFields(base, fields);
  assert.equal(Object.getPrototypeOf(made), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(made, '__proto__')?.value, { again: true });
  assert.deepEqual(Object.keys(made), ['__proto__', 'a']);
  assert.equal((made as { polluted?: unknown }).polluted, undefined);
  assert.equal(({} as { polluted?: unknown; again?: unknown }).again, undefined);
});
