import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS, TallyCounter, TallyHistogram } from '../../../kernel/index.ts';

const LABELS = ['route', 'status'] as const;
const labelSet = fc.record({ route: fc.constantFrom('/a', '/b/:id', 'passthrough', 'we"ird\\route'), status: fc.constantFrom('200', '404', '500') });
// Values on and around the bounds, where upper-inclusive buckets are easy to get wrong.
const value = fc.oneof(fc.constantFrom(...DURATION_BUCKETS, 0, 1e-9, 11), fc.double({ min: 0, max: 12, noNaN: true }));

test('a tally histogram is written exactly as prom-client writes a histogram fed the same observations', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(labelSet, value), { maxLength: 60 }), async (observations) => {
      const stock = new Registry();
      const tallied = new Registry();
      const reference = new Histogram({ name: 'm', help: 'h', labelNames: LABELS, buckets: DURATION_BUCKETS, registers: [stock] });
      const subject = new TallyHistogram({ name: 'm', help: 'h', labelNames: LABELS, buckets: DURATION_BUCKETS, registers: [tallied] });
      for (const [labels, v] of observations) {
        reference.observe(labels, v);
        subject.tally(labels).observe(v);
      }
      assert.equal(await tallied.metrics(), await stock.metrics());
      assert.deepEqual((await subject.get()).values, (await reference.get()).values);
    }),
    { numRuns: 200 },
  );
});

test('a tally histogram still takes observations through prom-client, and reset empties both kinds', async () => {
  const registry = new Registry();
  const h = new TallyHistogram({ name: 'h', help: 'h', labelNames: LABELS, buckets: [1], registers: [registry] });
  h.observe({ route: '/x', status: '200' }, 0.5);
  h.tally({ route: '/y', status: '200' }).observe(2);
  const before = await registry.metrics();
  assert.match(before, /h_count\{route="\/x",status="200"\} 1/);
  assert.match(before, /h_bucket\{le="1",route="\/y",status="200"\} 0/);
  assert.match(before, /h_bucket\{le="\+Inf",route="\/y",status="200"\} 1/);
  h.reset();
  assert.doesNotMatch(await registry.metrics(), /h_count/);
});

test('a label the histogram or counter was not made with is refused when its tally is asked for, not at a scrape', () => {
  const h = new TallyHistogram({ name: 'h', help: 'h', labelNames: LABELS, buckets: [1], registers: [] });
  assert.throws(() => h.tally({ route: '/x', status: '200', user: 'alice' } as never), /user is not a label of h/);
  const c = new TallyCounter({ name: 'c', help: 'c', labelNames: ['op'] as const, registers: [] });
  assert.throws(() => c.tally({ op: 'x', user: 'alice' } as never), /user/);
});

test('a tally counter reads as prom-client counter fed the same increments, shows 0 once a label set is known, and keeps counting across scrapes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(fc.constantFrom('getJob', 'find', 'queryJobs'), { maxLength: 30 }), { minLength: 1, maxLength: 4 }), async (rounds) => {
      const stock = new Registry();
      const tallied = new Registry();
      const reference = new Counter({ name: 'm_total', help: 'c', labelNames: ['op'] as const, registers: [stock] });
      const subject = new TallyCounter({ name: 'm_total', help: 'c', labelNames: ['op'] as const, registers: [tallied] });
      // Each round is followed by a scrape: what a scrape moved into prom-client must not be counted again.
      for (const round of rounds) {
        for (const op of round) {
          reference.inc({ op });
          subject.tally({ op }).n += 1;
        }
        assert.equal(await tallied.metrics(), await stock.metrics());
      }
    }),
    { numRuns: 100 },
  );
  const registry = new Registry();
  const c = new TallyCounter({ name: 'seen_total', help: 'c', labelNames: ['op'] as const, registers: [registry] });
  c.tally({ op: 'getJob' });
  assert.match(await registry.metrics(), /seen_total\{op="getJob"\} 0/);
});
