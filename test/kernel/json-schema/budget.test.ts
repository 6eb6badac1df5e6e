/**
 * Work that grows with schema × data (many alternatives applied to every
 * item of a big array) is estimated before validating: past the budget the
 * data is refused at once, naming why, instead of holding the event loop for
 * seconds; ordinary big inputs under ordinary schemas still validate.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkData, schemaProblems } from '../../../kernel/json-schema/index.ts';
import { inspectSchema } from '../../../kernel/json-schema/limits.ts';

const alternatives = (n: number) => Array.from({ length: n }, (_, i) => ({ const: i }));

test('the width counts the subschemas that may apply to one datum', () => {
  assert.equal(inspectSchema({ type: 'array', items: { anyOf: alternatives(450) } }, '').width, 451);
  assert.equal(inspectSchema({ type: 'object', properties: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`p${i}`, { type: 'string' }])) }, '').width, 1);
  // Two alternatives, each with an items schema of two: an item may meet four subschemas.
  const nested = { anyOf: [{ items: { allOf: [{ type: 'string' }] } }, { items: { allOf: [{ type: 'string' }] } }] };
  assert.equal(inspectSchema(nested, '').width, 4);
});

test('450 alternatives over 20,000 items are refused at once, naming the budget', () => {
  const schema = { type: 'array', items: { anyOf: alternatives(450) } };
  // Saved first, as a surface would: compiling is the author's cost, not the caller's.
  assert.deepEqual(schemaProblems(schema, 'schema'), []);
  const started = performance.now();
  const result = checkData(schema, Array.from({ length: 20_000 }, () => 449), 'body.list', 'schema');
  const ms = performance.now() - started;
  assert.equal(result.ok, false);
  assert.match(JSON.stringify(result), /body\.list.*is too large to validate against this schema/);
  // Ajv alone took 5.6 s on this under load (each failing alternative builds an error).
  assert.ok(ms < 1000, `${Math.round(ms)} ms`);
});

test('20,000 objects under a plain items schema still validate, and mistakes are named', () => {
  const schema = { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'integer' }, name: { type: 'string', pattern: '^n\\d+$' } } } };
  const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `n${i}` }));
  assert.deepEqual(checkData(schema, items, 'body', 'schema'), { ok: true });
  items[7] = { id: 7, name: 'x' };
  assert.deepEqual(checkData(schema, items, 'body', 'schema'), { ok: false, details: [{ parameter: 'body[7].name', message: 'must match pattern "^n\\d+$"' }] });
});
