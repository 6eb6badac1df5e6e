/**
 * A search built to read every row (a `q` of 150 substring tests on a task
 * field no index holds, over 8,000 tasks), sent to a real core process on
 * the embedded store, again and again as an attacker would. While it runs,
 * `/health/live` answers within 100 ms at the 90th percentile (as in the
 * loop attacks, for a shared machine) and a job read within 1 s, because
 * callers' searches run on the store's search thread. The control: the same
 * core with `SQLITE_SEARCH_THREAD=false` is held for the search's length.
 * And one caller who floods the thread with long searches cannot make
 * another caller's search wait behind all of theirs, nor have it refused:
 * past their own share, their searches are the ones refused (429).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';
import { tasks } from '../fixtures/search-data.ts';
import { request } from '../helpers/core.ts';
import { crash, spawnCore } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { figure, quantile, tempDir } from '../faults/support.ts';
import { passwordAccount, probeLive } from './support.ts';
import { timingSleep } from '../helpers/wait.ts';

const PASSWORD = 'search-attack-password';
const basic = (user: string): { authorization: string } => ({ authorization: `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}` });
const auth = basic('admin');
/** A second caller, allowed to read jobs and tasks, whose searches the administrator's flood must not hold back. */
const BYSTANDER = 'bystander';
const data = tempDir('search-attack');
const ROWS = 8000;
/** Task ids are UUIDs on the platform's routes. */
const attackId = (i: number): string => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;

before(async () => {
  const store = SqliteStore.open({ dataDir: join(data.path, 'store'), collections: CORE_COLLECTIONS });
  const pad = 'z'.repeat(400);
  await store.collection('tasks').insertMany(Array.from({ length: ROWS }, (_, i) => ({ ...tasks[i % tasks.length]!, _id: attackId(i), summary: `${pad}-${i}` })));
  await passwordAccount(store, BYSTANDER, PASSWORD, ['OperationsManager', 'apiread']);
  await store.close();
});
after(() => data.remove());

/**
 * Matches nothing, so every row is read; `tag` makes each search new, so no remembered total short-cuts it.
 * About 850 ms with 150 tests, on this kind of host.
 */
function longSearch(tag: string, tests = 150): string {
  const q = { or: Array.from({ length: tests }, (_, i) => ({ contains: { summary: `absent-${tag}-${i}` } })) };
  return `/operations-manager/tasks?q=${encodeURIComponent(JSON.stringify(q))}&limit=1`;
}

interface Attack {
  /** How long each long search took. */
  readonly searches: number[];
  /** How long each `/health/live` took while they ran. */
  readonly live: number[];
}

/** Three long searches one after another, and `/health/live` every 20 ms until they are done. */
async function attack(core: CoreProcess): Promise<Attack> {
  const searches: number[] = [];
  const probe = probeLive(core.url);
  for (let round = 0; round < 3; round += 1) {
    const started = performance.now();
    const res = await request(`${core.url}${longSearch(`r${round}`)}`, { headers: auth, signal: AbortSignal.timeout(30_000) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((res.body as { metadata: { total: number } }).metadata.total, 0);
    searches.push(performance.now() - started);
  }
  const live = await probe.stop();
  return { searches, live };
}

test('while searches that read every row run, the core answers /health/live and job reads at once', { timeout: 120_000 }, async () => {
  const core = await spawnCore({ DATA_DIR: join(data.path, 'store'), ADMIN_PASSWORD: PASSWORD });
  try {
    await timingSleep(1000, 'the search thread opens its connection just after the core listens; searches before run on the event loop');
    const { searches, live } = await attack(core);
    const median = quantile(searches, 0.5);
    assert.ok(median >= 300, `each search is long enough to tell (${searches.map((s) => s.toFixed(0)).join(', ')} ms)`);
    figure('search thread on: searches, ms', searches.map((t) => t.toFixed(0)).join(', '));
    figure('search thread on: /health/live p50 / p90 / max, ms', [0.5, 0.9, 1].map((q) => quantile(live, q).toFixed(1)).join(' / '));
    assert.ok(live.length >= 10, `probed ${live.length} times`);
    assert.ok(quantile(live, 0.9) < 100, `/health/live p90 ${quantile(live, 0.9).toFixed(0)} ms while searches of ${median.toFixed(0)} ms ran`);
    const read = performance.now();
    const [slow, job] = await Promise.all([
      request(`${core.url}${longSearch('beside')}`, { headers: auth, signal: AbortSignal.timeout(30_000) }),
      (async () => {
        await timingSleep(50, 'the read by id is sent once the long search is under way');
        const started = performance.now();
        const res = await request(`${core.url}/operations-manager/tasks/${attackId(1)}`, { headers: auth, signal: AbortSignal.timeout(1000) });
        return { status: res.status, took: performance.now() - started };
      })(),
    ]);
    assert.equal(slow.status, 200);
    assert.equal(job.status, 200);
    assert.ok(job.took < performance.now() - read, 'the read by id came back before the search beside it');
  } finally {
    await crash(core);
  }
});

test('the control: with the search thread off, the same searches hold /health/live for their length', { timeout: 120_000 }, async () => {
  const core = await spawnCore({ DATA_DIR: join(data.path, 'store'), ADMIN_PASSWORD: PASSWORD, SQLITE_SEARCH_THREAD: 'false' });
  try {
    const { searches, live } = await attack(core);
    const median = quantile(searches, 0.5);
    assert.ok(median >= 300, `each search is long enough to tell (${searches.map((s) => s.toFixed(0)).join(', ')} ms)`);
    figure('search thread off: searches, ms', searches.map((t) => t.toFixed(0)).join(', '));
    figure('search thread off: /health/live p50 / p90 / max, ms', [0.5, 0.9, 1].map((q) => quantile(live, q).toFixed(1)).join(' / '));
    assert.ok(Math.max(...live) >= median / 2, `on the event loop a probe waited ${Math.max(...live).toFixed(0)} ms behind searches of ${median.toFixed(0)} ms`);
  } finally {
    await crash(core);
  }
});

test('a caller who floods the search thread delays another caller\'s search by a turn, and only the flood is refused', { timeout: 120_000 }, async () => {
  const core = await spawnCore({ DATA_DIR: join(data.path, 'store'), ADMIN_PASSWORD: PASSWORD });
  try {
    await timingSleep(1000, 'the search thread opens its connection just after the core listens; searches before run on the event loop');
    const search = async (user: string, tag: string): Promise<{ status: number; retryAfter: string | null; at: number }> => {
      const res = await request(`${core.url}${longSearch(tag, 40)}`, { headers: basic(user), signal: AbortSignal.timeout(60_000) });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), at: performance.now() };
    };
    const started = performance.now();
    // Twenty at once: sixteen are the caller's share, and the rest are refused at once.
    const flood = Promise.all(Array.from({ length: 20 }, (_, i) => search('admin', `flood-${i}`)));
    await timingSleep(100, 'the bystander searches once the flood is queued');
    const bystander = await search(BYSTANDER, 'bystander');
    const flooded = await flood;
    const answered = flooded.filter((r) => r.status === 200).map((r) => r.at - started).sort((x, y) => x - y);
    const refused = flooded.filter((r) => r.status !== 200);
    figure('flood: answered at, ms', answered.map((t) => t.toFixed(0)).join(', '));
    figure('bystander: answered at, ms', (bystander.at - started).toFixed(0));
    assert.equal(bystander.status, 200, 'the bystander\'s search is taken, though the flood filled its own share');
    assert.equal(answered.length, 16, 'one caller holds sixteen searches at most');
    assert.ok(refused.every((r) => r.status === 429 && r.retryAfter === '1'), JSON.stringify(refused));
    // In arrival order it would have come after all sixteen; in turns, after at most three of them.
    const before = answered.filter((t) => t < bystander.at - started).length;
    assert.ok(before <= 4, `${before} of the flood's searches were answered before the bystander's`);
  } finally {
    await crash(core);
  }
});
