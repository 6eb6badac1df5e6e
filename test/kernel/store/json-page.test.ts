/**
 * A page's bytes wrapped in an answer's envelope (kernel/store/json-page.ts):
 * written in place when the store made the page with room around it, copied
 * otherwise, and never written outside a buffer the store made for the page,
 * such as Node's shared pool, where other buffers live.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { adoptRoomy, ENVELOPE_ROOM, enveloped, roomyBytes } from '../../../kernel/store/json-page.ts';

const head = '{"message":"Successfully retrieved items","data":[';
const tailOf = (n: number): string => `],"metadata":{"skip":0,"limit":100,"total":${n},"currentPageSize":${n}}}`;

test('in the page\'s own room: the envelope is written around the documents, in the same memory, with no copy', () => {
  const page = roomyBytes('{"a":1},{"b":"é"}');
  const whole = enveloped(head, page, tailOf(2));
  assert.equal(whole.toString(), `${head}{"a":1},{"b":"é"}${tailOf(2)}`);
  assert.equal(whole.buffer, page.buffer, 'the same memory');
});

test('a page in Node\'s shared pool is copied, and its neighbours in the pool are left as they were', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 8 }), fc.string({ maxLength: 200 }), (neighbours, docs) => {
      const before = neighbours.map((n) => Buffer.from(n));
      const page = Buffer.from(docs);
      const after = neighbours.map((n) => Buffer.from(n));
      const whole = enveloped(head, page, tailOf(1));
      assert.equal(whole.toString(), `${head}${docs}${tailOf(1)}`);
      assert.deepEqual([...before, ...after].map((b) => b.toString()), [...neighbours, ...neighbours]);
      assert.equal(page.toString(), docs, 'the page itself is unchanged');
    }),
    { numRuns: 200 },
  );
});

test('a second envelope around the same page is copied: the first answer\'s bytes stay as they were sent', () => {
  const page = roomyBytes('{"a":1}');
  const first = enveloped(head, page, tailOf(1));
  const sent = Buffer.from(first);
  const second = enveloped('{"other":[', page, ']}');
  assert.equal(second.toString(), '{"other":[{"a":1}]}');
  assert.deepEqual(first, sent);
});

test('bytes handed over from another thread are written in place only when they have the room', () => {
  const made = roomyBytes('{"x":true}');
  // As the search thread's transfer gives them: a new Buffer over the same ArrayBuffer, offset and length.
  const handed = adoptRoomy(Buffer.from(made.buffer, made.byteOffset, made.length));
  assert.equal(enveloped('[', handed, ']').buffer, made.buffer);
  const tight = Buffer.from(new ArrayBuffer(ENVELOPE_ROOM + 3), ENVELOPE_ROOM, 3);
  tight.write('"y"');
  const adopted = adoptRoomy(tight);
  assert.notEqual(enveloped('[', adopted, ']').buffer, tight.buffer, 'no room after it: copied');
});
