/**
 * What the MongoDB store sends for a document, checked against the driver's
 * own BSON codec (no server needed): keys the server refuses or reads as
 * something else are escaped and come back exactly, and a document over the
 * BSON limit is refused the same way on both stores.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BSON } from 'mongodb';
import { DocumentTooLargeError } from '../../../kernel/errors.ts';
import { BSON_LIMIT } from '../../../kernel/store/limits.ts';
import { decodeDoc, encodeDoc, ESCAPE_MARK } from '../../../kernel/store/mongo/codec.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Doc } from '../../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

/** What the server would store and answer: the document through BSON and back, as the driver reads it. */
function throughBson(doc: Doc): Doc {
  return BSON.deserialize(BSON.serialize(doc)) as Doc;
}

function keysOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(k, ...keysOf(v));
  return out;
}

test('$-keys, {$ref, $id}, NUL and the escape mark itself survive the round trip exactly', () => {
  const doc: Doc = {
    _id: 'w1',
    $schema: 'http://json-schema.org/draft-07/schema#',
    link: { $ref: 'jobs', $id: 'j1' },
    'nul\0key': 1,
    [`${ESCAPE_MARK}already`]: 'x',
    'a.b': 'dots are allowed as they are',
    list: [{ $each: [1, 2] }, 'plain'],
    'pct%24': 'a percent sign stays',
  };
  const encoded = encodeDoc('workflows', doc);
  // Nothing the server reads as an operator or a DBRef, and no NUL BSON could not carry.
  for (const key of keysOf(encoded)) assert.ok(!key.startsWith('$') && !key.includes('\0'), key);
  const back = decodeDoc(throughBson(encoded));
  assert.deepEqual(back, doc);
  assert.equal((back['link'] as object).constructor, Object, 'read back as a plain object, not a DBRef');
  // Without escaping, the driver turns the same object into a DBRef: the defect this guards against.
  assert.notEqual((throughBson({ _id: 'x', link: { $ref: 'jobs', $id: 'j1' } })['link'] as object).constructor, Object);
});

test('any JSON document survives encode, BSON and decode unchanged', () => {
  const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('$ref', '$id', '$x', `${ESCAPE_MARK}`, 'a\0b', '%', '%24', '$%00'));
  const json = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 3 }), tie('object')),
    object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  }));
  fc.assert(
    fc.property(json.object, (obj) => {
      // `__proto__` is refused at the HTTP edge; BSON would not keep it either.
      const doc = JSON.parse(JSON.stringify({ ...obj, _id: 'd' }).replace(/"__proto__":/g, '"proto":')) as Doc;
      assert.deepEqual(decodeDoc(throughBson(encodeDoc('jobs', doc))), doc);
    }),
    { seed: 20261124, numRuns: 300 },
  );
});

test('documents without special keys are sent as they are', () => {
  const doc = { _id: 'j', name: 'n', nested: { a: [1, { b: 2 }] } };
  assert.deepEqual(encodeDoc('jobs', doc), doc);
});

test('a document over 16 MiB of BSON is DOCUMENT_TOO_LARGE on MongoDB and on SQLite alike, and nothing is written', async () => {
  // Just over the limit as BSON, measured by the driver's codec; small enough as JSON text for SQLite.
  const big: Doc = { _id: 'big', output: 'x'.repeat(BSON_LIMIT) };
  const justUnder: Doc = { _id: 'ok', output: 'x'.repeat(BSON_LIMIT - 100) };
  assert.ok(BSON.calculateObjectSize(big) > BSON_LIMIT && BSON.calculateObjectSize(justUnder) <= BSON_LIMIT);
  assert.throws(() => encodeDoc('jobs', big), DocumentTooLargeError);
  assert.doesNotThrow(() => encodeDoc('jobs', justUnder));
  // The embedded store's side of the same limit, whatever MONGO_URL says (the server side needs no server: the size is checked before sending).
  const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  try {
    const jobs = store.collection('jobs');
    await assert.rejects(jobs.insertOne(big), (err: unknown) => err instanceof DocumentTooLargeError && err.status === 413);
    await jobs.insertOne({ _id: 'big', output: 'small' });
    await assert.rejects(store.batch([{ op: 'replace', collection: 'jobs', doc: { _id: 'big', output: 'y' } }, { op: 'replace', collection: 'jobs', doc: big }]), DocumentTooLargeError);
    assert.deepEqual(await jobs.findById('big'), { _id: 'big', output: 'small' }, 'the batch was all or nothing');
    await jobs.insertOne(justUnder);
  } finally {
    await store.close();
  }
});
