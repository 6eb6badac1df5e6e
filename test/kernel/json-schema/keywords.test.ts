/**
 * The linear `uniqueItems` and `enum` judge exactly as Ajv's own (the
 * oracle, an untouched instance) on generated values, key order and 1 vs 1.0
 * included, and 20,000 small objects are checked in milliseconds instead of
 * seconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { canonical } from '../../../kernel/json-schema/keywords.ts';
import { checkData, schemaProblems } from '../../../kernel/json-schema/index.ts';

const oracle = new Ajv({ strict: false });
const value = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(0, 1, 1.0, -0, 2.5, 'a', 'b', '1', true, false, null), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3, noNullPrototype: true })),
})).value;
/** A copy with every object's keys in reverse order: equal to the original for JSON Schema. */
function reordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reordered);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reordered(x)]));
  return v;
}

test('uniqueItems agrees with Ajv on generated arrays, reordered keys included', () => {
  const schema = { type: 'array', uniqueItems: true };
  const judge = oracle.compile(schema);
  fc.assert(
    fc.property(fc.array(value, { maxLength: 6 }), fc.boolean(), (items, shuffle) => {
      const data = shuffle ? items.map((v, i) => (i % 2 ? reordered(v) : v)) : items;
      return checkData(schema, data, 'body', 'schema').ok === judge(data);
    }),
    { numRuns: 2000 },
  );
  assert.equal(checkData(schema, [{ a: 1, b: 2 }, { b: 2, a: 1.0 }], 'body', 'schema').ok, false);
  assert.equal(canonical({ b: [1, { d: 1, c: 2 }], a: 'x' }), canonical({ a: 'x', b: [1.0, { c: 2, d: 1 }] }));
});

test('enum agrees with Ajv on generated values', () => {
  fc.assert(
    fc.property(fc.array(value, { minLength: 1, maxLength: 5 }), value, (allowed, datum) => {
      const schema = { enum: allowed };
      let judge: ReturnType<Ajv['compile']>;
      try {
        judge = oracle.compile(schema);
      } catch {
        // Duplicate allowed values make the schema invalid for both.
        return schemaProblems(schema, 'schema').length === 1;
      }
      return checkData(schema, datum, 'body', 'schema').ok === judge(datum) && checkData(schema, reordered(datum), 'body', 'schema').ok === judge(datum);
    }),
    { numRuns: 2000 },
  );
});

test('a duplicate is named by both its places', () => {
  const result = checkData({ type: 'array', uniqueItems: true }, [{ x: 1 }, { y: 2 }, { x: 1 }], 'body.list', 'schema');
  assert.deepEqual(result, { ok: false, details: [{ parameter: 'body.list', message: 'must NOT have duplicate items (items ## 0 and 2 are identical)' }] });
});

test('uniqueItems over 20,000 objects and a 10,000-value enum take milliseconds', () => {
  const items = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `n${i}`, tags: ['a', 'b'] }));
  let started = performance.now();
  assert.equal(checkData({ type: 'array', uniqueItems: true }, items, 'body', 'schema').ok, true);
  const unique = performance.now() - started;
  const allowed = Array.from({ length: 10_000 }, (_, i) => ({ code: i }));
  started = performance.now();
  assert.equal(checkData({ type: 'array', items: { enum: allowed } }, items.map((_, i) => ({ code: i % 10_000 })), 'body', 'schema').ok, true);
  const inEnum = performance.now() - started;
  // Generous bounds for a shared machine; Ajv's own pairwise comparison took 7 s on the first.
  assert.ok(unique < 1000 && inEnum < 1000, `uniqueItems ${Math.round(unique)} ms, enum ${Math.round(inEnum)} ms`);
});
