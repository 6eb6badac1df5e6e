/**
 * Reading the stored calls for a report (gateway/src/audit/report-store.ts):
 * every call in the range once, in time order, pages found by the last key
 * without a total counted again for each, and the gateway's event loop free
 * between pages. On the embedded store every read completes at once, so a
 * walk that never yielded held the gateway for its whole length: 4.6 s for
 * 200,000 calls.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { newObjectId } from '../../../kernel/store/ids.ts';
import { GATEWAY_COLLECTIONS } from '../../../gateway/src/audit/collection.ts';
import { eachStoredCall } from '../../../gateway/src/audit/report-store.ts';
import { auditCall } from '../../faults/support.ts';
import { timingSleep } from '../../helpers/wait.ts';

const CALLS = 20_000;
const START = 1_700_000_000_000;

test('a walk over 20,000 calls visits each once in time order and lets the event loop run between its pages', async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
  try {
    const base = auditCall('walk/1.0');
    // Two calls share each millisecond, so pages also turn on the id within one time.
    await store.collection('audit').insertMany(Array.from({ length: CALLS }, (_, i) => ({ ...base, _id: newObjectId(), time: START + Math.floor(i / 2) })));
    let ticks = 0;
    const tick = setInterval(() => (ticks += 1), 0);
    const times: number[] = [];
    const { skipped } = await eachStoredCall(store, { since: START + 100, until: START + 9_100 }, (call) => times.push(call.time ?? Number.NaN));
    clearInterval(tick);
    await timingSleep(1, 'the interval is cleared before the next test');
    assert.equal(skipped, 0);
    assert.equal(times.length, 18_000, 'every call of the range, each once');
    assert.ok(times.every((t, i) => i === 0 || t >= times[i - 1]!), 'in time order');
    assert.equal(times[0], START + 100);
    assert.equal(times.at(-1), START + 9_099);
    // Nine pages of 2,000: the timer ran between them. A walk that never yielded gives it no turn at all.
    assert.ok(ticks >= 5, `the event loop ran ${ticks} times during the walk`);
  } finally {
    await store.close();
  }
});
