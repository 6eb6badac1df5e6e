/** Reading an upstream list page after page by what the upstream answered (gateway/src/mapping/pages.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextSkipOf, readPages } from '../../../gateway/src/mapping/pages.ts';
import type { UpstreamPage } from '../../../gateway/src/mapping/pages.ts';

const RECORDS = Array.from({ length: 11 }, (_, i) => i);

/** An upstream holding RECORDS that gives at most `cap` a page, and says nextPageSkip as `next` decides. */
function upstream(cap: number, next: (skip: number, given: number) => number | null | undefined = () => undefined) {
  const asked: Array<[number, number]> = [];
  const read = async (skip: number, limit: number): Promise<UpstreamPage> => {
    asked.push([skip, limit]);
    const items = RECORDS.slice(skip, skip + Math.min(limit, cap));
    return { items, total: RECORDS.length, nextSkip: next(skip, items.length) };
  };
  return { read, asked };
}

test('a cap below the asked page is not the end: every record is read, after the records each page brought', async () => {
  const up = upstream(3);
  const { items, total } = await readPages({ skip: 0, limit: null, pageMax: 100, read: up.read });
  assert.deepEqual(items, RECORDS);
  assert.equal(total, 11);
  assert.deepEqual(up.asked.map(([s]) => s), [0, 3, 6, 9]);
});

test("the upstream's nextPageSkip says where the next page starts, and null ends the read", async () => {
  const up = upstream(4, (skip, given) => (skip + given < 8 ? skip + given : null));
  const { items } = await readPages({ skip: 0, limit: null, pageMax: 4, read: up.read });
  assert.deepEqual(items, RECORDS.slice(0, 8), 'nextPageSkip null after 8 records ends the read, whatever the total');
});

test('a nextPageSkip that does not move forward is not followed: the read goes on after what came, and ends', async () => {
  const up = upstream(2, () => 0);
  const { items } = await readPages({ skip: 0, limit: null, pageMax: 5, read: up.read });
  assert.deepEqual(items, RECORDS);
});

test("the caller's limit and skip are served exactly across short pages, asking no more than the page maximum", async () => {
  const up = upstream(2);
  const { items } = await readPages({ skip: 1, limit: 5, pageMax: 4, read: up.read });
  assert.deepEqual(items, [1, 2, 3, 4, 5]);
  assert.ok(up.asked.every(([, limit]) => limit <= 4));
});

test('nextSkipOf reads a number, null, or nothing from the search metadata', () => {
  assert.equal(nextSkipOf({ nextPageSkip: 25 }), 25);
  assert.equal(nextSkipOf({ nextPageSkip: null }), null);
  assert.equal(nextSkipOf({}), undefined);
  assert.equal(nextSkipOf({ nextPageSkip: '25' }), undefined);
  assert.equal(nextSkipOf(null), undefined);
});
