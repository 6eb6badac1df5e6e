/** The passed-through page's bytes are the bytes serialising the parsed page gives. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageJson } from '../../../core/src/operations-manager/search-page-json.ts';
import { pageMetadata } from '../../../core/src/operations-manager/search-service.ts';

const docs = [{ _id: 'a', s: '","' }, { _id: 'b', s: '}]' }, { _id: 'c', s: '\ud800</script>' }];

test('a page of none, one or several documents is, byte for byte, JSON.stringify of the parsed page', () => {
  for (const n of [0, 1, 2, 3]) {
    const page = docs.slice(0, n);
    const metadata = pageMetadata(0, 100, n, n);
    const expected = JSON.stringify({ message: 'Successfully "retrieved"', data: page, metadata });
    const bytes = Buffer.from(page.map((d) => JSON.stringify(d)).join(','));
    assert.deepEqual(pageJson('Successfully "retrieved"', bytes, metadata), Buffer.from(expected));
  }
});

test('the bytes given are not changed', () => {
  const bytes = Buffer.from(docs.map((d) => JSON.stringify(d)).join(','));
  const copy = Buffer.from(bytes);
  pageJson('m', bytes, pageMetadata(0, 100, 3, 3));
  assert.deepEqual(bytes, copy);
});
