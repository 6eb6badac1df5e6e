/**
 * What a schema may not hold, named by its place: patterns RE2 cannot run,
 * references that never end or multiply the work, schemas too big or too
 * deep once their references are expanded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { schemaProblems } from '../../../kernel/json-schema/index.ts';
import { MAX_DEPTH, MAX_SUBSCHEMAS } from '../../../kernel/json-schema/limits.ts';

test('a lookbehind is refused naming the path of its pattern', () => {
  const schema = { type: 'object', properties: { host: { type: 'string', pattern: '(?<=x)y' } } };
  assert.deepEqual(schemaProblems(schema, 'inputSchema'), [{ parameter: 'inputSchema.properties.host.pattern', message: 'lookbehind is not supported (patterns must run in linear time)' }]);
});

test('patterns are found wherever a subschema may be: combinators, items, definitions, patternProperties keys', () => {
  const schema = {
    anyOf: [{ items: [{ pattern: '(a)\\1' }] }],
    definitions: { x: { not: { pattern: 'a(?=b)' } } },
    patternProperties: { '^(?!tmp)': { type: 'string' } },
    properties: { 'odd key': { additionalProperties: { pattern: '^ok$' } } },
  };
  assert.deepEqual(
    schemaProblems(schema, 's').map((p) => p.parameter),
    ['s.patternProperties["^(?!tmp)"]', 's.anyOf[0].items[0].pattern', 's.definitions.x.not.pattern'],
  );
});

test('references must stay within the schema and must not loop', () => {
  assert.deepEqual(schemaProblems({ $ref: 'http://example.com/s.json' }, 's'), [{ parameter: 's.$ref', message: 'must refer within the same schema (# or #/...)' }]);
  assert.deepEqual(schemaProblems({ $ref: '#/definitions/missing' }, 's'), [{ parameter: 's.$ref', message: '#/definitions/missing names no subschema' }]);
  assert.match(schemaProblems({ anyOf: [{ $ref: '#' }] }, 's')[0]!.message, /recursive references are not supported/);
  const tree = { definitions: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/definitions/node' } } } } }, $ref: '#/definitions/node' };
  assert.match(schemaProblems(tree, 's')[0]!.message, /recursive references are not supported/);
  assert.deepEqual(schemaProblems({ properties: { a: { $id: 'x' } } }, 's'), [{ parameter: 's.properties.a.$id', message: 'is only allowed at the top of a schema' }]);
});

test('a chain of references that doubles at each step is refused by its expanded size', () => {
  const definitions: Record<string, unknown> = { d30: { type: 'string' } };
  for (let i = 0; i < 30; i++) definitions[`d${i}`] = { anyOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] };
  const started = performance.now();
  const problems = schemaProblems({ definitions, $ref: '#/definitions/d0' }, 's');
  assert.deepEqual(problems, [{ parameter: 's', message: `has more than ${MAX_SUBSCHEMAS} subschemas once its $refs are expanded` }]);
  assert.ok(performance.now() - started < 1000, 'measured without expanding 2^30 nodes');
});

test('too many alternatives and too deep a nesting are refused; the limits themselves are accepted', () => {
  const alternatives = (n: number) => ({ type: 'array', items: { anyOf: Array.from({ length: n }, (_, i) => ({ const: i })) } });
  assert.deepEqual(schemaProblems(alternatives(MAX_SUBSCHEMAS - 3), 's'), []);
  assert.equal(schemaProblems(alternatives(MAX_SUBSCHEMAS), 's')[0]?.message, `has more than ${MAX_SUBSCHEMAS} subschemas once its $refs are expanded`);
  const nested = (depth: number): Record<string, unknown> => (depth === 1 ? { type: 'string' } : { properties: { a: nested(depth - 1) } });
  assert.deepEqual(schemaProblems(nested(MAX_DEPTH), 's'), []);
  assert.equal(schemaProblems(nested(MAX_DEPTH + 1), 's')[0]?.message, `nests subschemas more than ${MAX_DEPTH} deep once its $refs are expanded`);
});

test('a schema that is not one is named as such', () => {
  assert.deepEqual(schemaProblems('object', 's'), [{ parameter: 's', message: 'must be a JSON Schema object' }]);
  assert.match(schemaProblems({ type: 'nope' }, 's')[0]!.message, /^is not a valid JSON Schema: schema is invalid/);
});
