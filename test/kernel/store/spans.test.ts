/**
 * DocCollection.spans against mingo: random jobs whose start and end times
 * are numbers, strings, booleans, null, objects or missing, and whatever the
 * store answers for a condition is what MongoDB's aggregation (the MongoDB
 * store's own pipeline, run by mingo) answers for the same documents.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Aggregator } from 'mingo';
import type { AnyObject } from 'mingo/types';
import { and, jobs as jobType } from '../../../kernel/index.ts';
import type { Condition, Doc, Store } from '../../../kernel/index.ts';
import { toMongoFilter } from '../../../kernel/search/to-mongo.ts';
import { spanPipeline } from '../../../kernel/store/mongo/spans.ts';
import { newObjectId } from '../../../kernel/store/ids.ts';
import { searchStoreFactories } from '../../helpers/stores.ts';

const eq = (path: string, value: string): Condition => ({ kind: 'compare', op: 'eq', field: jobType.fields.get(path)!, value });

/** What a job's time may hold once a caller or an import has had a hand in it. */
const time: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -1e12, max: 2 ** 50 }) },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }) },
  { weight: 1, arbitrary: fc.constantFrom('1700000000000', '', true, false, null, { $numberLong: '5' }, [3]) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

const job = fc.record({ status: fc.constantFrom('complete', 'error', 'running'), start: time, end: time });

function docsOf(tag: string, drawn: ReadonlyArray<{ status: string; start: unknown; end: unknown }>): Doc[] {
  return drawn.map(({ status, start, end }) => {
    const metrics: Record<string, unknown> = {};
    if (start !== undefined) metrics['start_time'] = start;
    if (end !== undefined) metrics['end_time'] = end;
    return { _id: newObjectId(), name: tag, status, metrics };
  });
}

function mingoSpans(docs: readonly Doc[], where: Condition | null): { count: number; total: number } {
  const [row] = new Aggregator(spanPipeline(toMongoFilter(where), 'metrics.start_time', 'metrics.end_time')).run(docs as AnyObject[]) as Array<{ count: number; total: number }>;
  return { count: row?.count ?? 0, total: row?.total ?? 0 };
}

let run = 0;
for (const factory of searchStoreFactories()) {
  describe(`spans on ${factory.name}`, { skip: factory.skip ?? false }, () => {
    let store: Store;
    before(async () => {
      store = await factory.open();
    });
    after(() => store.close());

    test('count and total are mingo\'s for the same documents, whatever their times hold', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(job, { maxLength: 40 }), fc.boolean(), async (drawn, completeOnly) => {
          const tag = `spans-${(run += 1)}`;
          const docs = docsOf(tag, drawn);
          if (docs.length > 0) await store.collection('jobs').insertMany(docs);
          const where = completeOnly ? and([eq('name', tag), eq('status', 'complete')]) : eq('name', tag);
          const got = await store.collection('jobs').spans(where, 'metrics.start_time', 'metrics.end_time', 'account:test');
          const expected = mingoSpans(docs, where);
          assert.equal(got.count, expected.count);
          assert.ok(Math.abs(got.total - expected.total) <= 1e-6 * Math.max(1, Math.abs(expected.total)), `total ${got.total}, mingo ${expected.total}`);
        }),
        { numRuns: 60 },
      );
    });

    test('a condition that selects nothing is a count and a total of 0', async () => {
      assert.deepEqual(await store.collection('jobs').spans(eq('name', 'no-such-workflow'), 'metrics.start_time', 'metrics.end_time'), { count: 0, total: 0 });
    });
  });
}

test('the pipeline takes plain dotted paths only', () => {
  for (const path of ['metrics.$where', '$metrics', 'a..b', '', 'a.b c', '__proto__.x.$y']) {
    assert.throws(() => spanPipeline({}, path, 'metrics.end_time'), /not a plain field path/, path);
  }
  assert.doesNotThrow(() => spanPipeline({}, 'metrics.start_time', 'metrics.end_time'));
});
