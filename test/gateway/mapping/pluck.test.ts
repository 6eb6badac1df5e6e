/**
 * Copying a field out of JSON text without parsing it must give what parsing
 * and serialising it again would, or give up (null) so the caller parses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { pluck } from '../../../gateway/src/mapping/pluck.ts';
import { fill, lastPath } from '../../../gateway/src/mapping/template.ts';

const keys = (...names: string[]): Buffer[] => names.map((n) => Buffer.from(n));
const text = (buf: Buffer | null): string | null => (buf === null ? null : buf.toString('utf8'));

test('a field of an object is its bytes as written, nested values and all', () => {
  const json = Buffer.from('{"metadata":{"x":"}"},"data":{"name":"a \\"quoted\\" }{ name","list":[1,[2,{"d":null}],"]"],"n":-1.5e3,"t":true}}');
  assert.equal(text(pluck(json, keys('data'))), '{"name":"a \\"quoted\\" }{ name","list":[1,[2,{"d":null}],"]"],"n":-1.5e3,"t":true}');
  assert.equal(text(pluck(json, keys('data', 'list'))), '[1,[2,{"d":null}],"]"]');
  assert.equal(text(pluck(json, keys('data', 'n'))), '-1.5e3');
  assert.equal(text(pluck(json, keys('metadata', 'x'))), '"}"');
  assert.equal(text(pluck(json, [])), json.toString('utf8'));
});

test('text outside ASCII passes through as the same UTF-8 bytes', () => {
  const json = Buffer.from(JSON.stringify({ data: { name: 'Ünïcødé ✓ 😀 "{[' } }));
  assert.deepEqual(JSON.parse(text(pluck(json, keys('data')))!), { name: 'Ünïcødé ✓ 😀 "{[' });
});

test('the last of a repeated key counts, as in JSON.parse', () => {
  assert.equal(text(pluck(Buffer.from('{"data":1,"data":2}'), keys('data'))), '2');
});

test('it gives up rather than guess: a missing key, a key with escapes, a step into a non-object, broken text', () => {
  assert.equal(pluck(Buffer.from('{"other":1}'), keys('data')), null);
  assert.equal(pluck(Buffer.from('{"d\\u0061ta":1}'), keys('data')), null, 'the escaped key may be the one asked for');
  assert.equal(pluck(Buffer.from('{"data":[{"a":1}]}'), keys('data', 'a')), null);
  assert.equal(pluck(Buffer.from('{"data":"x"}'), keys('data', 'a')), null);
  assert.equal(pluck(Buffer.from('[1,2]'), keys('data')), null);
  for (const broken of ['', '{', '{"data":', '{"data":{"a":1}', '{"data" 1}', '{"data":1 "b":2}', '{"data":"open}', '"a" "b"', '{}']) {
    assert.equal(pluck(Buffer.from(broken), keys('data')), null, broken);
  }
  assert.equal(pluck(Buffer.from('{"a":1} trailing'), []), null);
});

/** What parsing finds at `path` in `json`; undefined where it finds nothing. */
function parsedAt(json: Buffer, path: readonly string[]): unknown {
  let value: unknown = JSON.parse(json.toString('utf8'));
  for (const k of path) value = value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, k) ? (value as Record<string, unknown>)[k] : undefined;
  return value;
}

test('for any JSON document, a field it finds parses to what parsing the document finds there', () => {
  const key = fc.oneof(fc.constantFrom('data', 'results', 'a', 'é', ''), fc.string());
  fc.assert(
    fc.property(fc.dictionary(key, fc.jsonValue()), fc.array(key, { maxLength: 3 }), fc.boolean(), (doc, path, pretty) => {
      const json = Buffer.from(JSON.stringify(doc, null, pretty ? 2 : undefined));
      const found = pluck(json, path.map((k) => Buffer.from(k)));
      if (found !== null) assert.deepEqual(JSON.parse(found.toString('utf8')), parsedAt(json, path));
    }),
    { numRuns: 2000 },
  );
});

test('where no key needs escapes, it gives up only on fields that are not there', () => {
  const key = fc.constantFrom('data', 'results', 'a', 'é', '');
  const doc = fc.object({ key, maxDepth: 3, values: [fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(fc.string())] });
  fc.assert(
    fc.property(doc, fc.array(key, { maxLength: 3 }), fc.boolean(), (value, path, pretty) => {
      const json = Buffer.from(JSON.stringify(value, null, pretty ? 2 : undefined));
      const found = pluck(json, path.map((k) => Buffer.from(k)));
      const expected = parsedAt(json, path);
      if (found === null) assert.equal(expected, undefined, `gave up on a value that is there: ${JSON.stringify(path)} in ${json.toString()}`);
      else assert.deepEqual(JSON.parse(found.toString('utf8')), expected);
    }),
    { numRuns: 2000 },
  );
});

test('only `{last}` and `{last.a.b}` answers are copied; anything else is filled as before', () => {
  assert.deepEqual(lastPath('{last}'), []);
  assert.deepEqual(lastPath('{last.data.groups}')?.map(String), ['data', 'groups']);
  for (const other of ['{last.data[0]}', '{last.data|json}', '{calls.data}', 'x{last.data}', { a: '{last.data}' }, '{lastly}']) assert.equal(lastPath(other), null, JSON.stringify(other));
  assert.deepEqual(fill('{last.data[0]}', { last: { data: ['a'] } }), 'a');
});
