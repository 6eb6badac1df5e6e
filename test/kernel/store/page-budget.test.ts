/**
 * A page a caller asks for carries a byte budget (`maxBytes`, from the
 * config's `search.maxPageMb`). Past it the store refuses the page before it
 * reads a document, and says how many of the page's first documents fit; the
 * code's own walks either leave the budget out and read as before, or ask to
 * be given the documents that fit. Runs on the
 * embedded store on the event loop and on its search thread, and on MongoDB
 * when MONGO_URL is set.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import type { SortKey } from '../../../kernel/search/conditions.ts';
import type { SearchQuery, Store } from '../../../kernel/store/types.ts';
import { AppError } from '../../../kernel/errors.ts';
import { searchStoreFactories } from '../../helpers/stores.ts';

/** Ten jobs whose `blob` is 10,000 characters: each is about 10 KB in JSONB and in BSON alike, whatever else it holds. */
const BLOB = 10_000;
const COUNT = 10;
const id = (i: number): string => `page-budget-${String(i).padStart(3, '0')}`;
const docs = Array.from({ length: COUNT }, (_, i) => ({ _id: id(i), name: `job ${i}`, status: 'complete', blob: String.fromCharCode(97 + i).repeat(BLOB) }));
const BY_ID: readonly SortKey[] = [{ field: jobType.fields.get('_id')!, direction: 1 }];
const query = (skip: number, limit: number, maxBytes?: number): SearchQuery => ({ where: null, sort: BY_ID, skip, limit, ...(maxBytes === undefined ? {} : { maxBytes }) });

/** The store's refusal as a caller meets it: a 400 naming `limit`, with the way out in its message. */
function refusedFitting(err: unknown): number {
  assert.ok(err instanceof AppError, String(err));
  assert.equal(err.status, 400);
  assert.equal(err.code, 'VALIDATION_FAILED');
  assert.deepEqual(err.details.map((d) => d.parameter), ['limit']);
  const fits = /ask for at most (\d+) \(limit=(\d+)\)/.exec(err.message);
  assert.ok(fits, err.message);
  assert.equal(fits[1], fits[2]);
  return Number(fits[1]);
}

async function fitsOf(page: Promise<unknown>): Promise<number> {
  try {
    await page;
  } catch (err) {
    return refusedFitting(err);
  }
  assert.fail('the page was served');
}

for (const factory of searchStoreFactories()) {
  describe(`a page's byte budget on ${factory.name}`, { skip: factory.skip ?? false }, () => {
    let store: Store;
    before(async () => {
      store = await factory.open();
      await store.collection('jobs').insertMany(docs);
    });
    after(async () => {
      await store.close();
    });

    test('a page within its budget is served whole, as without one', async () => {
      const jobs = store.collection('jobs');
      const bounded = await jobs.search(query(0, COUNT, 200_000));
      assert.deepEqual(bounded.docs.map((d) => d['_id']), docs.map((d) => d._id));
      assert.deepEqual(bounded, await jobs.search(query(0, COUNT)));
    });

    test('a page past its budget is refused, naming how many fit; those are served and one more is not', async () => {
      const jobs = store.collection('jobs');
      // 3.5 documents' worth: three fit, four do not, in either store's measure.
      const budget = 3.5 * BLOB;
      const fits = await fitsOf(jobs.searchJson(query(2, COUNT, budget), []));
      assert.equal(fits, 3);
      await assert.rejects(jobs.search(query(2, COUNT, budget)), (err) => refusedFitting(err) === 3);
      await assert.rejects(jobs.findPage(query(2, COUNT, budget)), (err) => refusedFitting(err) === 3);
      assert.deepEqual((await jobs.search(query(2, fits, budget))).docs.map((d) => d['_id']), [id(2), id(3), id(4)]);
      assert.equal(await fitsOf(jobs.search(query(2, fits + 1, budget))), 3);
    });

    test('one document is always served, however small the budget', async () => {
      const page = await store.collection('jobs').search(query(5, 1, 100));
      assert.deepEqual(page.docs.map((d) => d['_id']), [id(5)]);
    });

    test('fields the answer hides do not count against the budget', async () => {
      const page = await store.collection('jobs').searchJson(query(0, COUNT, 2 * BLOB), ['blob']);
      assert.equal(page.count, COUNT);
      const shown = JSON.parse(`[${page.json.toString()}]`) as Array<Record<string, unknown>>;
      assert.deepEqual(shown.map((d) => d['_id']), docs.map((d) => d._id));
      assert.ok(shown.every((d) => !Object.hasOwn(d, 'blob')));
    });

    test('the code\'s own walks, which give no budget, read any page', async () => {
      assert.equal((await store.collection('jobs').findPage(query(0, COUNT))).length, COUNT);
    });

    test('a walk that asks to shorten is given the documents that fit, and always one', async () => {
      const jobs = store.collection('jobs');
      const shortened = await jobs.findPage({ ...query(2, COUNT, 3.5 * BLOB), shorten: true });
      assert.deepEqual(shortened.map((d) => d['_id']), [id(2), id(3), id(4)]);
      assert.deepEqual((await jobs.findPage({ ...query(7, COUNT, 100), shorten: true })).map((d) => d['_id']), [id(7)]);
      assert.equal((await jobs.findPage({ ...query(0, COUNT, 20 * BLOB), shorten: true })).length, COUNT, 'a page within the budget is whole');
    });

    test('whatever the page and budget: either the page is served, or exactly the number named fits', async () => {
      const jobs = store.collection('jobs');
      await fc.assert(
        fc.asyncProperty(fc.nat(COUNT + 1), fc.integer({ min: 1, max: COUNT + 2 }), fc.integer({ min: 1, max: 12 * BLOB }), async (skip, limit, budget) => {
          let fits: number;
          try {
            const page = await jobs.search(query(skip, limit, budget));
            assert.equal(page.docs.length, Math.max(0, Math.min(limit, COUNT - skip)));
            return;
          } catch (err) {
            fits = refusedFitting(err);
          }
          assert.ok(fits < limit, `${fits} of ${limit} fit`);
          // A walk that shortens is given exactly that prefix.
          assert.deepEqual((await jobs.findPage({ ...query(skip, limit, budget), shorten: true })).map((d) => d['_id']), docs.slice(skip, skip + fits).map((d) => d._id));
          // The way out the refusal names works, and asking for one more is refused again.
          assert.equal((await jobs.search(query(skip, fits, budget))).docs.length, fits);
          if (fits >= 1) assert.equal(await fitsOf(jobs.search(query(skip, fits + 1, budget))), fits);
        }),
        { numRuns: 150 },
      );
    });
  });
}
