/** query reads a dot path inside obj; nothing found is failure unless pass_on_null. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePath, query } from '../../../../core/src/engine/tasks/query.ts';
import { assertTaskError, run } from './context.ts';

const obj = { a: { b: [{ c: 'deep' }, { c: 0 }], 'odd.key': true, empty: null } };

test('query follows dots, bracket indexes, numeric segments and quoted keys', async () => {
  for (const [path, expected] of [
    ['a.b[0].c', 'deep'],
    ['a.b.0.c', 'deep'],
    ['a.b[1].c', 0],
    ['a["odd.key"]', true],
    ["a['odd.key']", true],
    ['a.b', obj.a.b],
  ] as const) {
    assert.deepEqual(await run(query, { incoming: { query: path, obj } }), { finishState: 'success', outgoing: { return_data: expected } }, path);
  }
});

test('query starting with an index reads into an array', async () => {
  const outcome = await run(query, { incoming: { query: '[1].name', obj: [{ name: 'x' }, { name: 'y' }] } });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { return_data: 'y' } });
});

test('query finding nothing, or null, ends in failure unless pass_on_null is true', async () => {
  for (const path of ['a.missing', 'a.b[5].c', 'a.empty', 'a.b.0.c.d']) {
    assert.deepEqual(await run(query, { incoming: { query: path, obj } }), { finishState: 'failure', outgoing: { return_data: null } }, path);
    assert.deepEqual(await run(query, { incoming: { query: path, obj, pass_on_null: false } }), { finishState: 'failure', outgoing: { return_data: null } }, path);
    assert.deepEqual(await run(query, { incoming: { query: path, obj, pass_on_null: true } }), { finishState: 'success', outgoing: { return_data: null } }, path);
  }
});

test('query never reaches prototypes or inherited members', async () => {
  for (const path of ['__proto__', 'a.__proto__', 'constructor', 'a.constructor.prototype', 'a.toString', 'a.b.constructor', 'a.hasOwnProperty', 'a["__proto__"]']) {
    const outcome = await run(query, { incoming: { query: path, obj } });
    assert.deepEqual(outcome, { finishState: 'failure', outgoing: { return_data: null } }, path);
  }
});

test('query finds nothing through prototype-named keys even when they are own data', async () => {
  const parsed: unknown = JSON.parse('{"__proto__": {"x": 1}, "constructor": {"x": 2}, "prototype": {"x": 3}, "ok": {"x": 4}}');
  for (const path of ['__proto__.x', 'constructor.x', 'prototype.x']) {
    assert.deepEqual(await run(query, { incoming: { query: path, obj: parsed } }), { finishState: 'failure', outgoing: { return_data: null } }, path);
  }
  assert.deepEqual((await run(query, { incoming: { query: 'ok.x', obj: parsed } })).outgoing, { return_data: 4 });
});

test('query does not index into strings', async () => {
  const outcome = await run(query, { incoming: { query: 's.0', obj: { s: 'abc' } } });
  assert.equal(outcome.finishState, 'failure');
});

test('query refuses malformed paths and a non-boolean pass_on_null', async () => {
  assert.deepEqual(parsePath('x[2][3].y'), ['x', '2', '3', 'y']);
  for (const bad of ['a..b', 'a.', '.a', 'a[x]', 'a[1', 'a]b', 'a[0]b']) {
    await assertTaskError(query, { incoming: { query: bad, obj } }, /^query ".*" (is not a valid path|has an empty segment)/);
  }
  await assertTaskError(query, { incoming: { query: '', obj } }, /^query must be a non-empty path/);
  await assertTaskError(query, { incoming: { obj } }, /^query must be a non-empty path/);
  await assertTaskError(query, { incoming: { query: 'a', obj, pass_on_null: 'yes' } }, /^pass_on_null must be true or false$/);
});
