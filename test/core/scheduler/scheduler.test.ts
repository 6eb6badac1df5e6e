/**
 * The polling scheduler on a real store with a fake clock: what is due runs
 * once and gets its next run, what is disabled, not due or locked does not,
 * expired locks are taken over, failures are recorded, several schedulers
 * on one store never run a document twice, and a stopped scheduler (or one
 * never stopped) neither runs nor keeps the process alive.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { StoreUnavailableError } from '../../../kernel/errors.ts';
import { createLogger } from '../../../kernel/logger.ts';
import { Scheduler } from '../../../core/src/scheduler/scheduler.ts';
import type { ScheduledDoc, SchedulerOptions } from '../../../core/src/scheduler/scheduler.ts';
import { catalogAutomations as automations } from '../../../core/src/store/doc-types.ts';
import { newObjectId } from '../../../kernel/store/ids.ts';
import type { Doc, Store } from '../../../kernel/store/types.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { openTestStore, storeFactories } from '../../helpers/stores.ts';
import { CATALOG_AUTOMATIONS, CORE_COLLECTIONS, JOBS } from '../../../core/src/store/collections.ts';
import { nextTurn } from '../../helpers/wait.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();
const logger = createLogger({ level: 'warn', service: 'test', stream: new Writable({ write: (_c, _e, done) => done() }) });
const notDisabled = { kind: 'not', item: { kind: 'compare', op: 'eq', field: automations.fields.get('disabled')!, value: true } } as const;

interface Harness {
  readonly store: Store;
  readonly scheduler: Scheduler;
  readonly runs: string[];
  clock: number;
}

function harness(store: Store, options: Partial<SchedulerOptions<ScheduledDoc>> = {}, runs: string[] = []): Harness {
  const h: Harness = {
    store,
    runs,
    clock: T0,
    scheduler: undefined as unknown as Scheduler,
  };
  (h as { scheduler: Scheduler }).scheduler = new Scheduler({
    store,
    collection: CATALOG_AUTOMATIONS,
    eligible: notDisabled,
    run: async (doc) => void runs.push(doc['name'] as string),
    logger,
    pollMs: 20,
    now: () => h.clock,
    ...options,
  });
  return h;
}

async function put(store: Store, name: string, fields: Doc = {}): Promise<string> {
  const _id = newObjectId();
  await store.collection('automations').insertOne({ _id, name, nextRunAt: iso(T0), repeatInterval: null, repeatTimezone: null, lockedAt: null, disabled: false, _rev: 0, ...fields });
  return _id;
}

const read = async (store: Store, id: string): Promise<Doc> => (await store.collection('automations').findById(id))!;

test('a due one-off runs once, records the run and gets no next run', async () => {
  const h = harness((await openTestStore()));
  const id = await put(h.store, 'once');
  h.clock = T0 + 1500;
  assert.equal(await h.scheduler.tick(), 1);
  assert.deepEqual(h.runs, ['once']);
  const doc = await read(h.store, id);
  assert.equal(doc['nextRunAt'], null);
  assert.equal(doc['lockedAt'], null);
  assert.equal(doc['lastRunAt'], iso(T0 + 1500));
  assert.equal(doc['lastFinishedAt'], iso(T0 + 1500));
  assert.equal(doc['_rev'], 2, 'one write to claim, one to finish');
  h.clock += HOUR;
  assert.equal(await h.scheduler.tick(), 0);
  assert.deepEqual(h.runs, ['once']);
});

test('nothing runs before it is due, when disabled, or when nextRunAt is null', async () => {
  const h = harness((await openTestStore()));
  await put(h.store, 'later', { nextRunAt: iso(T0 + HOUR) });
  await put(h.store, 'off', { disabled: true });
  await put(h.store, 'unscheduled', { nextRunAt: null });
  assert.equal(await h.scheduler.tick(), 0);
  h.clock = T0 + HOUR;
  assert.equal(await h.scheduler.tick(), 1);
  assert.deepEqual(h.runs, ['later']);
});

test('a repeating interval runs each time it is due and keeps its phase; missed runs collapse into one', async () => {
  const h = harness((await openTestStore()));
  const id = await put(h.store, 'hourly', { repeatInterval: '1 hour' });
  h.clock = T0 + 2000;
  await h.scheduler.tick();
  assert.equal((await read(h.store, id))['nextRunAt'], iso(T0 + HOUR));
  h.clock = T0 + HOUR - 1;
  assert.equal(await h.scheduler.tick(), 0, 'not yet');
  h.clock = T0 + 3.5 * HOUR;
  assert.equal(await h.scheduler.tick(), 1, 'three missed runs, one made');
  assert.equal((await read(h.store, id))['nextRunAt'], iso(T0 + 4 * HOUR));
  assert.deepEqual(h.runs, ['hourly', 'hourly']);
});

test('a cron schedule moves to its next match in its timezone', async () => {
  const h = harness((await openTestStore()));
  const id = await put(h.store, 'weekdays', { nextRunAt: '2026-01-09T08:00:00.000Z', repeatInterval: '0 9 * * 1-5', repeatTimezone: 'Europe/Berlin' });
  h.clock = Date.parse('2026-01-09T08:00:03Z');
  assert.equal(await h.scheduler.tick(), 1);
  assert.equal((await read(h.store, id))['nextRunAt'], '2026-01-12T08:00:00.000Z', 'Friday 09:00 Berlin → Monday 09:00 Berlin');
});

test('a fresh lock is respected; an expired one is taken over', async () => {
  const h = harness((await openTestStore()), { lockLifetimeMs: 60_000 });
  h.clock = T0 + 10 * 60_000;
  await put(h.store, 'held', { lockedAt: iso(h.clock - 30_000) });
  await put(h.store, 'abandoned', { lockedAt: iso(h.clock - 61_000) });
  assert.equal(await h.scheduler.tick(), 1);
  assert.deepEqual(h.runs, ['abandoned']);
});

test('a failing run is recorded, unlocked, and a repeating schedule goes on', async () => {
  const runs: string[] = [];
  const h = harness((await openTestStore()), { run: async (doc) => { runs.push(doc['name'] as string); throw new Error('workflow missing'); } }, runs);
  const once = await put(h.store, 'once');
  const repeat = await put(h.store, 'repeat', { repeatInterval: '10 minutes' });
  h.clock = T0 + 1000;
  assert.equal(await h.scheduler.tick(), 2);
  for (const id of [once, repeat]) {
    const doc = await read(h.store, id);
    assert.equal(doc['failReason'], 'workflow missing');
    assert.equal(doc['failCount'], 1);
    assert.equal(doc['failedAt'], iso(T0 + 1000));
    assert.equal(doc['lockedAt'], null);
  }
  assert.equal((await read(h.store, once))['nextRunAt'], null, 'a failed one-off is not retried forever');
  assert.equal((await read(h.store, repeat))['nextRunAt'], iso(T0 + 10 * 60_000));
});

test('a run the busy store refused is not recorded: the lock is released and the next poll runs it', async () => {
  let busy = true;
  const runs: string[] = [];
  const h = harness((await openTestStore()), {
    run: async (doc) => {
      if (busy) throw new StoreUnavailableError('The store is busy with another process; try again');
      runs.push(doc['name'] as string);
    },
  });
  const id = await put(h.store, 'owed');
  h.clock = T0 + 1000;
  assert.equal(await h.scheduler.tick(), 1, 'claimed and tried');
  const after = await read(h.store, id);
  assert.equal(after['lockedAt'], null, 'the lock is given back at once');
  assert.equal(after['lastRunAt'] ?? null, null, 'no run is recorded');
  assert.equal(after['failReason'], undefined, 'nor a failure');
  assert.equal(after['nextRunAt'], iso(T0), 'still due');
  busy = false;
  assert.equal(await h.scheduler.tick(), 1);
  assert.deepEqual(runs, ['owed']);
  assert.equal((await read(h.store, id))['nextRunAt'], null, 'a one-off is done once it has run');
});

test('a schedule changed during the run keeps the new nextRunAt', async () => {
  const store = await openTestStore();
  const moved = iso(T0 + 5 * HOUR);
  const h = harness(store, {
    run: async (doc) => {
      // What an edit through the API does meanwhile: a compare-and-set that keeps the lock.
      const fresh = (await store.collection('automations').findById(doc['_id'] as string))!;
      assert.ok(await store.collection('automations').replaceIfRev({ ...fresh, nextRunAt: moved, _rev: (fresh['_rev'] as number) + 1 }, fresh['_rev'] as number));
    },
  });
  const id = await put(store, 'edited', { repeatInterval: '1 hour' });
  h.clock = T0 + 1;
  await h.scheduler.tick();
  const doc = await read(store, id);
  assert.equal(doc['nextRunAt'], moved);
  assert.equal(doc['lockedAt'], null);
});

for (const factory of storeFactories()) {
  test(`several schedulers polling one ${factory.name} store at once run each due document exactly once`, { skip: factory.skip ?? false }, async () => {
    const store = await factory.open();
    try {
      const runs: string[] = [];
      const slow = async (doc: Doc): Promise<void> => {
        runs.push(doc['name'] as string);
        // Holds the claim across a turn of the event loop, so the other schedulers' claims meet it.
        await nextTurn();
      };
      const schedulers = [1, 2, 3, 4].map(() => harness(store, { run: slow }, runs));
      const names = Array.from({ length: 12 }, (_, i) => `race-${i}`);
      for (const name of names) await put(store, name);
      for (const h of schedulers) h.clock = T0 + 1000;
      const counts = await Promise.all(schedulers.flatMap((h) => [h.scheduler.tick(), h.scheduler.tick()]));
      assert.equal(counts.reduce((a, b) => a + b, 0), names.length);
      assert.deepEqual([...runs].sort(), [...names].sort());
    } finally {
      await store.close();
    }
  });
}

test('start() polls on its own timer; after stop() the timer polls no more, and tick() runs nothing', async (t) => {
  // The scheduler's timer is node:test's mock: time moves when the test says. The embedded store on purpose, as
  // it uses no timers (a MongoDB client's would stop with them).
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  try {
    let ranFirst = (): void => undefined;
    const firstRun = new Promise<void>((resolve) => (ranFirst = resolve));
    const runs: string[] = [];
    const h = harness(store, { run: async (doc) => void (runs.push(doc['name'] as string), ranFirst()) }, runs);
    const ticks = t.mock.method(h.scheduler, 'tick');
    await put(store, 'first');
    h.clock = T0 + 1000;
    h.scheduler.start();
    assert.equal(h.scheduler.running, true);
    assert.equal(ticks.mock.callCount(), 0, 'nothing before the first timer fires');
    t.mock.timers.tick(0);
    assert.equal(ticks.mock.callCount(), 1, 'the timer polled');
    await firstRun;
    await h.scheduler.stop();
    assert.equal(h.scheduler.running, false);
    await put(store, 'after-stop');
    t.mock.timers.tick(100 * 20);
    assert.equal(ticks.mock.callCount(), 1, 'a hundred poll intervals later the timer has not polled again');
    assert.equal(await h.scheduler.tick(), 0);
    assert.deepEqual(runs, ['first']);
  } finally {
    await store.close();
  }
});

test('a started scheduler does not keep the process alive', () => {
  // The embedded store on purpose: it holds no handle, so only the scheduler's timers could keep the process
  // alive (a MongoDB client's sockets would, whatever the scheduler does).
  const script = `
    import { Scheduler } from './core/src/scheduler/scheduler.ts';
    import { CATALOG_AUTOMATIONS, CORE_COLLECTIONS } from './core/src/store/collections.ts';
    import { SqliteStore } from './kernel/store/sqlite/store.ts';
    import { createLogger } from './kernel/logger.ts';
    const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
    new Scheduler({ store, collection: CATALOG_AUTOMATIONS, run: async () => {}, logger: createLogger({ level: 'error', service: 't' }), pollMs: 10 }).start();
    console.log('started');`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 15_000, encoding: 'utf8' });
  assert.equal(child.error, undefined, 'the process did not exit by itself');
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /started/);
});

test('a registry without a nextRunAt date field is refused at construction', () => {
  // Refused before the store is used at all, so any store does.
  assert.throws(() => new Scheduler({ store: SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }), collection: JOBS, run: async () => {}, logger, pollMs: 10 }), /must declare nextRunAt/);
});
