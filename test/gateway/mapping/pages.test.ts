/**
 * Reading an upstream list page after page by what the upstream answered
 * (gateway/src/mapping/pages.ts), and never more records than the gateway
 * holds at once (`gateway.legacyMaxRecords`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextSkipOf, readPages } from '../../../gateway/src/mapping/pages.ts';
import type { UpstreamPage } from '../../../gateway/src/mapping/pages.ts';
import { AppError } from '../../../kernel/errors.ts';

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
  const { items, total } = await readPages({ skip: 0, limit: null, paging: { pageMax: 100, maxRecords: 1000 }, read: up.read });
  assert.deepEqual(items, RECORDS);
  assert.equal(total, 11);
  assert.deepEqual(up.asked.map(([s]) => s), [0, 3, 6, 9]);
});

test("the upstream's nextPageSkip says where the next page starts, and null ends the read", async () => {
  const up = upstream(4, (skip, given) => (skip + given < 8 ? skip + given : null));
  const { items } = await readPages({ skip: 0, limit: null, paging: { pageMax: 4, maxRecords: 1000 }, read: up.read });
  assert.deepEqual(items, RECORDS.slice(0, 8), 'nextPageSkip null after 8 records ends the read, whatever the total');
});

test('a nextPageSkip that does not move forward is not followed: the read goes on after what came, and ends', async () => {
  const up = upstream(2, () => 0);
  const { items } = await readPages({ skip: 0, limit: null, paging: { pageMax: 5, maxRecords: 1000 }, read: up.read });
  assert.deepEqual(items, RECORDS);
});

test("the caller's limit and skip are served exactly across short pages, asking no more than the page maximum", async () => {
  const up = upstream(2);
  const { items } = await readPages({ skip: 1, limit: 5, paging: { pageMax: 4, maxRecords: 1000 }, read: up.read });
  assert.deepEqual(items, [1, 2, 3, 4, 5]);
  assert.ok(up.asked.every(([, limit]) => limit <= 4));
});

test('a read that would answer more than the most records is refused after the first page, naming the count and the way out', async () => {
  const up = upstream(3);
  await assert.rejects(readPages({ skip: 0, limit: null, paging: { pageMax: 3, maxRecords: 10 }, read: up.read }), (err: { code?: string; status?: number; message?: string }) => {
    assert.equal(err.code, 'LEGACY_FAILED');
    assert.equal(err.status, 500);
    assert.match(err.message ?? '', /would answer 11 records; the gateway answers at most 10 at once \(gateway\.legacyMaxRecords\)\. Page with skip and limit/);
    return true;
  });
  assert.equal(up.asked.length, 1, 'refused on the first page\'s total, before the rest was fetched');
  // What the caller asks for is what counts: a skip or a limit that brings it within the bound is served.
  assert.deepEqual((await readPages({ skip: 1, limit: null, paging: { pageMax: 3, maxRecords: 10 }, read: upstream(3).read })).items, RECORDS.slice(1));
  assert.deepEqual((await readPages({ skip: 0, limit: 10, paging: { pageMax: 3, maxRecords: 10 }, read: upstream(3).read })).items, RECORDS.slice(0, 10));
});

test('a total that grows between pages is judged again on each page, and a lookup by what it holds', async () => {
  let calls = 0;
  const growing = async (skip: number, limit: number): Promise<UpstreamPage> => {
    calls += 1;
    return { items: Array.from({ length: limit }, (_, i) => skip + i), total: calls === 1 ? 4 : 100, nextSkip: skip + limit };
  };
  await assert.rejects(readPages({ skip: 0, limit: null, paging: { pageMax: 2, maxRecords: 6 }, read: growing }), /would answer 100 records/);
  assert.equal(calls, 2);
  const endless = async (skip: number, limit: number): Promise<UpstreamPage> => ({ items: Array.from({ length: limit }, (_, i) => skip + i), total: 1e9, nextSkip: skip + limit });
  const lookup = await readPages({ skip: 0, limit: null, paging: { pageMax: 2, maxRecords: 4 }, read: endless, enough: (items) => items.length >= 3 });
  assert.deepEqual(lookup.items, [0, 1, 2, 3], 'a lookup that stops at its first matches is not refused for the total');
  await assert.rejects(readPages({ skip: 0, limit: null, paging: { pageMax: 5, maxRecords: 4 }, read: endless, enough: () => false }), /would answer 5 records/);
});

test('nextSkipOf reads a number, null, or nothing from the search metadata', () => {
  assert.equal(nextSkipOf({ nextPageSkip: 25 }), 25);
  assert.equal(nextSkipOf({ nextPageSkip: null }), null);
  assert.equal(nextSkipOf({}), undefined);
  assert.equal(nextSkipOf({ nextPageSkip: '25' }), undefined);
  assert.equal(nextSkipOf(null), undefined);
});

/** An upstream that refuses, as our core does past its byte budget, any page of more than `fits` records. */
function refusing(fits: number) {
  const up = upstream(100);
  const read = async (skip: number, limit: number): Promise<UpstreamPage> => {
    if (limit > fits) {
      up.asked.push([skip, limit]);
      throw new AppError(500, 'VALIDATION_FAILED', `ask for at most ${fits} (limit=${fits})`, [{ parameter: 'limit', message: 'too large' }]);
    }
    return up.read(skip, limit);
  };
  return { read, asked: up.asked };
}

test('a page size the upstream refuses is halved until it is taken, and every record is read in pages of that size', async () => {
  const up = refusing(3);
  const { items, total } = await readPages({ skip: 1, limit: null, paging: { pageMax: 16, maxRecords: 1000 }, read: up.read });
  assert.deepEqual(items, RECORDS.slice(1));
  assert.equal(total, RECORDS.length);
  assert.deepEqual(up.asked, [[1, 16], [1, 8], [1, 4], [1, 2], [3, 2], [5, 2], [7, 2], [9, 2]]);
});

test('a refusal of one record, or of anything but the page size, ends the read with the upstream\'s error', async () => {
  await assert.rejects(readPages({ skip: 0, limit: null, paging: { pageMax: 4, maxRecords: 1000 }, read: refusing(0).read }), /ask for at most 0/);
  const other = async (): Promise<UpstreamPage> => {
    throw new AppError(500, 'VALIDATION_FAILED', 'Invalid search: sort is not a field', [{ parameter: 'sort', message: 'is not a field' }]);
  };
  await assert.rejects(readPages({ skip: 0, limit: null, paging: { pageMax: 4, maxRecords: 1000 }, read: other }), /sort is not a field/);
});
