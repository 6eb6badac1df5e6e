/**
 * Callers' searches on the embedded store's search thread: the thread answers
 * exactly what the event loop answers for the same store; a search that reads
 * every row holds the thread, not the event loop; a write acknowledged before
 * a search is seen by it; callers take turns, and past a caller's share or
 * everyone's bound a search is refused (429, 503); and a thread that dies
 * leaves searches to the event loop until it has been started again.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { jobs as jobType, tasks as taskType } from '../../../kernel/search/fields.ts';
import type { DocType } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';
import type { Condition } from '../../../kernel/search/conditions.ts';
import type { SearchQuery } from '../../../kernel/store/types.ts';
import { jobs, tasks } from '../../fixtures/search-data.ts';
import { tempDir } from '../../faults/support.ts';
import { TEST_LIMITS } from '../../helpers/search-fixture.ts';
import { eventually, timingSleep } from '../../helpers/wait.ts';
import { openThreadedStore } from '../../helpers/stores.ts';
import type { SearchThreadChange } from '../../../kernel/store/types.ts';

const data = tempDir('search-thread');
after(() => data.remove());

/** Searches in the interface's own syntax, so the thread sees what callers send. */
const QUERIES: Array<[DocType, string]> = [
  [jobType, ''],
  [jobType, 'equals[status]=running&sort=name&order=1'],
  [jobType, 'sort=created_by&order=-1&skip=3&limit=5'],
  [jobType, 'contains[description]=upgrade'],
  [jobType, 'sort=name&order=1&include=name,status'],
  [jobType, 'starts-with[name]=Port&limit=1&skip=1'],
  [jobType, 'in[status]=complete,error&sort=metrics.start_time&order=-1'],
  [jobType, 'limit=0&equals[status]=complete'],
  [taskType, 'sort=description&order=1'],
  [taskType, 'equals[status]=complete&sort=name&order=-1'],
  [taskType, 'gte[metrics.start_time]=0&limit=3'],
];

describe('the search thread answers as the event loop does', () => {
  let store: SqliteStore;
  before(async () => {
    store = await openThreadedStore(join(data.path, 'same'));
    await store.collection('jobs').insertMany(jobs);
    await store.collection('tasks').insertMany(tasks);
  });
  after(() => store.close());

  for (const [type, query] of QUERIES) {
    test(`${type.collection}?${query}: the same page, in the same order, with the same total`, async () => {
      const request = parseSearch(type, query, TEST_LIMITS);
      const collection = store.collection(type.collection);
      const hide = ['_id', 'variables'];
      const here = collection.searchJsonHere(request, hide);
      const threaded = await collection.searchJson(request, hide);
      assert.ok(here.total > 0, `${query} selects something, so the comparison says something`);
      assert.deepEqual(threaded, here);
    });
  }

  test('a write acknowledged before a search is in the page the thread answers', async () => {
    const collection = store.collection('jobs');
    const request = parseSearch(jobType, 'equals[name]=written-just-now', TEST_LIMITS);
    assert.equal((await collection.searchJson(request, [])).total, 0);
    await collection.insertOne({ ...jobs[0]!, _id: '5f0000000000000000000abc', name: 'written-just-now' });
    const page = await collection.searchJson(request, []);
    assert.equal(page.total, 1);
    assert.equal(JSON.parse(`[${page.json.toString('utf8')}]`)[0]._id, '5f0000000000000000000abc');
  });

  test('a search the store refuses is refused from the thread with the same error', async () => {
    // A sort on a field that has no column and is not a document path SQLite accepts is the store's own failure.
    const collection = store.collection('jobs');
    const bad: SearchQuery = { where: { kind: 'compare', op: 'eq', field: { ...jobType.fields.get('name')!, path: 'name"' }, value: 'x' }, sort: [], skip: 0, limit: 1 };
    const here = (() => {
      try {
        collection.searchJsonHere(bad, []);
        return null;
      } catch (err) {
        return err as Error;
      }
    })();
    assert.ok(here, 'the event loop refuses it');
    await assert.rejects(collection.searchJson(bad, []), (err: Error) => err.message === here.message && (err as { code?: unknown }).code === (here as { code?: unknown }).code);
  });
});

/**
 * A filter every row must evaluate at length: many substring tests of a field no index holds. Each call's is new,
 * so no total remembered from an earlier search (which would skip the page of a search that selects nothing) helps.
 */
function slowFilter(tag: string): Condition {
  const summary = taskType.fields.get('summary')!;
  return { kind: 'or', items: Array.from({ length: 300 }, (_, i) => ({ kind: 'match', mode: 'substring', field: summary, text: `absent-${tag}-${i}` }) as Condition) };
}

/** The longest gap between timer ticks while `work` runs: how long the event loop was held. */
async function longestHold(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  // Both measured alike: the first tick after the work has ended is counted too.
  await Promise.resolve().then(work);
  await timingSleep(5, 'one tick more, so a hold that ends with the work is counted as well');
  clearInterval(tick);
  return Math.max(longest, performance.now() - last);
}

describe('a search that reads every row', () => {
  let store: SqliteStore;
  before(async () => {
    store = await openThreadedStore(join(data.path, 'long'));
    const pad = 'y'.repeat(400);
    // About 0.2 ms a row for the filter below on this kind of host: some 150 ms for the whole search.
    const rows = Array.from({ length: 700 }, (_, i) => ({ ...tasks[i % tasks.length]!, _id: `task-${String(i).padStart(6, '0')}`, summary: `${pad}-${i}` }));
    await store.collection('tasks').insertMany(rows);
  });
  after(() => store.close());

  test('holds the search thread, not the event loop', async () => {
    const query = (tag: string): SearchQuery => ({ where: slowFilter(tag), sort: [{ field: taskType.fields.get('_id')!, direction: 1 }], skip: 0, limit: 10 });
    const collection = store.collection('tasks');
    const onLoop = await longestHold(async () => collection.searchJsonHere(query('loop'), []));
    // The control: on the event loop the same search holds it for its whole length.
    assert.ok(onLoop >= 60, `the search is long enough to tell (${onLoop.toFixed(0)} ms on the event loop)`);
    const offLoop = await longestHold(() => collection.searchJson(query('thread'), []));
    assert.ok(offLoop < onLoop / 4, `on the thread the event loop was held ${offLoop.toFixed(0)} ms at most, against ${onLoop.toFixed(0)} ms`);
  });

  test('past a caller\'s share their next search is a 429; past everyone\'s bound a caller holding nothing is still taken, once, and the rest get a 503; those sent are answered', async () => {
    // Answers come back through the event loop, so all sent in one turn are still waiting when the next is asked.
    const query: SearchQuery = { where: null, sort: [], skip: 0, limit: 1 };
    const collection = store.collection('tasks');
    const flood = Array.from({ length: 16 }, () => collection.searchJson(query, [], 'account:flood'));
    await assert.rejects(collection.searchJson(query, [], 'account:flood'), (err: { status?: number; code?: string; retryAfter?: number }) => err.status === 429 && err.code === 'TOO_MANY_REQUESTS' && err.retryAfter === 1);
    const others = ['account:b', 'account:c', 'account:d'].flatMap((caller) => Array.from({ length: 16 }, () => collection.searchJson(query, [], caller)));
    // Four callers filled the bound of 64: a fifth, holding nothing, is taken; a second search of theirs, or another
    // of the four's, is not.
    const fifth = collection.searchJson(query, [], 'account:e');
    await assert.rejects(collection.searchJson(query, [], 'account:e'), (err: { status?: number; code?: string }) => err.status === 503 && err.code === 'STORE_UNAVAILABLE');
    await assert.rejects(collection.searchJson(query, [], 'account:b'), (err: { status?: number; code?: string }) => err.status === 429 && err.code === 'TOO_MANY_REQUESTS');
    const answered = await Promise.all([...flood, ...others, fifth]);
    assert.ok(answered.every((p) => p.total === 700 && p.count === 1));
    assert.equal((await collection.searchJson(query, [], 'account:flood')).total, 700, 'once answered, the caller\'s searches are taken again');
  });

  test('a caller with many long searches waiting delays another caller\'s by about one of theirs', async () => {
    const collection = store.collection('tasks');
    const long = (tag: string): SearchQuery => ({ where: slowFilter(tag), sort: [], skip: 0, limit: 1 });
    const order: string[] = [];
    const flood = Array.from({ length: 8 }, (_, i) => collection.searchJson(long(`flood-${i}`), [], 'account:flood').then(() => order.push(`flood-${i}`)));
    const other = collection.searchJson(long('other'), [], 'account:other').then(() => order.push('other'));
    await Promise.all([...flood, other]);
    // Two of the flood at the thread when it came and one more whose lane was waiting first, then its turn:
    // fourth. In the order sent it would have been ninth.
    assert.equal(order.indexOf('other'), 3, order.join(', '));
  });
});

test('a search thread that dies fails the searches it held with a 503, is started again, and takes searches once ready', async () => {
  const changes: SearchThreadChange[] = [];
  const store = await openThreadedStore(join(data.path, 'dies'), { onSearchThread: (c) => changes.push(c), searchRestartMs: 300 });
  await store.collection('jobs').insertMany(jobs);
  const request = parseSearch(jobType, 'sort=name&order=1', TEST_LIMITS);
  const expected = store.collection('jobs').searchJsonHere(request, []);
  const slow: SearchQuery = { where: slowFilter('dies'), sort: [], skip: 0, limit: 1 };
  const thread = (): { worker: { terminate(): Promise<number> } } => (store as unknown as { searches: { worker: { terminate(): Promise<number> } } }).searches;

  const held = store.collection('tasks').searchJson(slow, []);
  await thread().worker.terminate();
  await assert.rejects(held, (err: { status?: number }) => err.status === 503);
  // Until the next thread is ready, searches are answered on the event loop, the same.
  assert.equal(store.searchThread().state === 'ready', false);
  assert.deepEqual(await store.collection('jobs').searchJson(request, []), expected);
  await eventually(() => store.searchThread().state === 'ready', { what: 'a new search thread is ready', timeoutMs: 20_000 });
  assert.deepEqual(changes.map((c) => (c.state === 'stopped' ? `stopped, again in ${c.restartInMs} ms` : c.state)), ['ready', 'stopped, again in 0 ms', 'ready']);
  assert.equal(store.searchThread().restarts, 1);
  const onThread = await longestHold(() => store.collection('tasks').searchJson({ ...slow, where: slowFilter('after') }, []));
  assert.ok(onThread < 40, `the new thread holds the long search, not the event loop (held ${onThread.toFixed(0)} ms)`);

  // Dying again soon after its start, it waits before it starts again, and a store closed meanwhile starts none.
  await thread().worker.terminate();
  await eventually(() => changes.length === 4, { what: 'the second death is reported', timeoutMs: 5000 });
  assert.deepEqual(changes[3], { state: 'stopped', error: changes[3]!.state === 'stopped' ? changes[3]!.error : null, restartInMs: 300 });
  assert.equal(store.searchThread().state, 'down');
  assert.deepEqual(await store.collection('jobs').searchJson(request, []), expected);
  await store.close();
  await timingSleep(400, 'past the restart\'s wait: a closed store must not have started a thread');
  assert.equal(changes.length, 4, 'nothing started after the store closed');
});
