/**
 * The kernel's object helpers (kernel/objects.ts): the prototype objects are
 * never plain documents, keys of data are defined rather than assigned, and
 * prototype names are found in dotted paths.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPlainObject, isPrototypeKey, ownProperty, prototypeSegment, setOwn } from '../../kernel/objects.ts';

test('Object.prototype itself is not a plain object, so no deep merge or copy walks into it', () => {
  assert.equal(isPlainObject(Object.prototype), false);
  assert.equal(isPlainObject(({} as { __proto__: unknown }).__proto__), false);
  assert.equal(isPlainObject({}), true);
  assert.equal(isPlainObject(Object.create(null)), true);
  assert.equal(isPlainObject(JSON.parse('{"__proto__": {"x": 1}}')), true);
});

test('setOwn keeps a __proto__ key as own data instead of swapping the prototype', () => {
  const out: Record<string, unknown> = {};
  setOwn(out, '__proto__', { hostname: '::1' });
  setOwn(out, 'constructor', 'c');
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.keys(out), ['__proto__', 'constructor']);
  assert.equal(JSON.stringify(out), '{"__proto__":{"hostname":"::1"},"constructor":"c"}');
  assert.equal(({} as Record<string, unknown>)['hostname'], undefined);
});

test('ownProperty reads own keys only, never inherited members', () => {
  const parsed = JSON.parse('{"__proto__": 1, "a": 2}') as Record<string, unknown>;
  assert.equal(ownProperty(parsed, '__proto__'), 1);
  assert.equal(ownProperty({}, 'constructor'), undefined);
  assert.equal(ownProperty({}, 'toString'), undefined);
  assert.equal(ownProperty(null, 'a'), undefined);
});

test('prototype names are found in dotted paths, whole segments only', () => {
  for (const key of ['__proto__', 'constructor', 'prototype']) assert.equal(isPrototypeKey(key), true);
  assert.equal(prototypeSegment('variables.settings.__proto__.hostname'), '__proto__');
  assert.equal(prototypeSegment('a.constructor.prototype'), 'constructor');
  assert.equal(prototypeSegment('prototype'), 'prototype');
  assert.equal(prototypeSegment('a.__proto__x.my_prototype'), null);
});
