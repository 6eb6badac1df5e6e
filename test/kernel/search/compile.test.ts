/** Pieces of the two compilers whose correctness is easy to get subtly wrong. */
import { TEST_LIMITS } from '../../helpers/search-fixture.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTextQuery } from '../../../kernel/search/conditions.ts';
import { escapeRegex, matchPattern, textSearchString, toMongoFilter } from '../../../kernel/search/to-mongo.ts';
import { ftsQuery, prefixUpperBound } from '../../../kernel/store/sqlite/compile.ts';
import { jobs } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';


test('text queries split words, phrases and exclusions the way document-database text search does', () => {
  assert.deepEqual(parseTextQuery('router "core network" -east pre-market'), { terms: ['router', 'pre', 'market'], phrases: ['core network'], excluded: ['east'] });
  // MongoDB matches a phrase against the raw text: split into words, "core-rtr-07" would find nothing there.
  assert.deepEqual(parseTextQuery('"core-rtr-07"'), { terms: [], phrases: ['core-rtr-07'], excluded: [] });
  assert.deepEqual(parseTextQuery('"  upgrade \t router "'), { terms: [], phrases: ['upgrade router'], excluded: [] });
  assert.deepEqual(parseTextQuery('"--" x'), { terms: ['x'], phrases: [], excluded: [] });
  assert.deepEqual(parseTextQuery('-a-b'), { terms: [], phrases: [], excluded: ['a', 'b'] });
});

test('the FTS5 query requires every phrase, or any term, and drops exclusions', () => {
  assert.equal(ftsQuery(parseTextQuery('a b -c')), '("a" OR "b") NOT "c"');
  assert.equal(ftsQuery(parseTextQuery('"x y" z')), '("x y")');
  assert.equal(ftsQuery(parseTextQuery('"x" "y"')), '("x" AND "y")');
});

test('the MongoDB $search string carries phrases quoted and exclusions negated', () => {
  assert.equal(textSearchString(parseTextQuery('a "b c" -d')), '"b c" a -d');
  assert.equal(textSearchString(parseTextQuery('"core-rtr-07"')), '"core-rtr-07"');
});

test('regular-expression metacharacters are escaped so user text is literal', () => {
  const pattern = escapeRegex('(a+)+$ [x] {2} a|b ^ . * ? \\');
  assert.equal(new RegExp(pattern).test('(a+)+$ [x] {2} a|b ^ . * ? \\'), true);
  assert.equal(new RegExp(`^${pattern}$`).test('aaaa'), false);
});

test('ends-with anchors at the true end, not before a trailing newline', () => {
  const re = new RegExp(matchPattern('suffix', 'abc'));
  assert.equal(re.test('xabc'), true);
  assert.equal(re.test('xabc\n'), false);
});

test('the prefix upper bound is the next string in code-point order', () => {
  assert.equal(prefixUpperBound('abc'), 'abd');
  assert.equal(prefixUpperBound('a\u{10FFFF}'), 'b');
  assert.equal(prefixUpperBound('\u{10FFFF}'), null);
  assert.equal(prefixUpperBound('a\uD7FF'), 'a\uE000');
  assert.equal(prefixUpperBound(''), null);
});

test('text search is hoisted to the top level of the MongoDB filter beside the other conditions', () => {
  const req = parseSearch(jobs, 'equals[status]=error&contains[description]=router', TEST_LIMITS);
  assert.deepEqual(toMongoFilter(req.where), { $and: [{ status: { $eq: 'error' } }], $text: { $search: 'router' } });
});

test('negations compile to field-level operators where MongoDB has them, and $nor otherwise', () => {
  const q = encodeURIComponent(JSON.stringify({ not: { or: [{ equals: { status: 'a' } }, { gt: { 'metrics.progress': 0.5 } }] } }));
  assert.deepEqual(toMongoFilter(parseSearch(jobs, `q=${q}`, TEST_LIMITS).where), { $nor: [{ $or: [{ status: { $eq: 'a' } }, { 'metrics.progress': { $gt: 0.5 } }] }] });
  assert.deepEqual(toMongoFilter(parseSearch(jobs, 'not-in[status]=a,b', TEST_LIMITS).where), { status: { $nin: ['a', 'b'] } });
  const notStarts = encodeURIComponent(JSON.stringify({ not: { 'starts-with': { name: 'x.' } } }));
  assert.deepEqual(toMongoFilter(parseSearch(jobs, `q=${notStarts}`, TEST_LIMITS).where), { name: { $not: { $regex: '^x\\.' } } });
});
