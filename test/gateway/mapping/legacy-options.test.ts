/**
 * Legacy list options (gateway/src/mapping/legacy-options.ts) with
 * prototype names: as paths in `fields` or `sort` they are refused naming
 * the path; as keys of stored data a projection keeps them as data and never
 * writes through them (issue 26, finding 1).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { project, readProjection, readSort } from '../../../gateway/src/mapping/legacy-options.ts';
import { AppError } from '../../../kernel/errors.ts';

const KEYS = ['__proto__', 'constructor', 'prototype'];

function refused(fn: () => unknown, path: string): void {
  assert.throws(fn, (err: unknown) => err instanceof AppError && err.status === 400 && err.code === 'BAD_REQUEST' && err.message.includes(JSON.stringify(path)) && /prototype/.test(err.message));
}

test('a fields path through a prototype name is refused naming the path, included or excluded', () => {
  for (const key of KEYS) {
    for (const path of [key, `${key}.hostname`, `variables.settings.${key}.hostname`, `a.${key}`]) {
      refused(() => readProjection({ name: 1, [path]: 1 }), path);
      refused(() => readProjection({ [path]: 0 }), path);
      refused(() => readProjection({ [path]: true }), path);
    }
  }
  // A key that only contains the name is a field like any other.
  assert.deepEqual(readProjection({ 'variables.my__proto__': 1 }), { kind: 'include', paths: ['variables.my__proto__'], dropId: false });
});

test('a sort through a prototype name is refused naming the field, in every form the legacy sort takes', () => {
  for (const key of KEYS) {
    const path = `metrics.${key}.x`;
    refused(() => readSort(path), path);
    refused(() => readSort({ [path]: 1 }), path);
    refused(() => readSort([[path, -1]]), path);
    refused(() => readSort([path]), path);
    refused(() => readSort({ field: path, direction: 'asc' }), path);
  }
  refused(() => readSort(JSON.parse('{"__proto__": 1}')), '__proto__');
});

test('an inclusion projection of a stored own __proto__ key answers it as data and writes into no prototype', () => {
  const doc = JSON.parse('{"_id": "j1", "variables": {"settings": {"region": "eu", "__proto__": {"hostname": "::1"}}}}') as Record<string, unknown>;
  const whole = project(doc, readProjection({ 'variables.settings': 1 }));
  assert.equal(JSON.stringify(whole), '{"_id":"j1","variables":{"settings":{"region":"eu","__proto__":{"hostname":"::1"}}}}');
  const two = project(doc, readProjection({ 'variables.settings.region': 1, 'variables.settings.x': 1 }));
  assert.equal(JSON.stringify(two), '{"_id":"j1","variables":{"settings":{"region":"eu"}}}');
  const excluded = project(doc, readProjection({ 'variables.settings.region': 0 }));
  assert.equal(JSON.stringify(excluded), '{"_id":"j1","variables":{"settings":{"__proto__":{"hostname":"::1"}}}}');
  assert.equal(({} as Record<string, unknown>)['hostname'], undefined);
  assert.equal(Object.getPrototypeOf((whole as { variables: { settings: object } }).variables.settings), Object.prototype);
});

test('projecting several paths into one answer merges own keys only', () => {
  const doc = JSON.parse('{"_id": "j1", "a": {"__proto__": {"x": 1}, "b": 2}, "c": [{"__proto__": {"y": 1}, "d": 3}]}') as Record<string, unknown>;
  const out = project(doc, readProjection({ 'a.b': 1, 'c.d': 1 }));
  assert.equal(JSON.stringify(out), '{"_id":"j1","a":{"b":2},"c":[{"d":3}]}');
  assert.equal(({} as Record<string, unknown>)['x'], undefined);
  assert.equal(({} as Record<string, unknown>)['y'], undefined);
});
