/**
 * The workflow engine's job metrics over a long history, asked for by a
 * caller who may only read the engine (`WorkFlowEngine` `apiread`), against a
 * real core process on the embedded store. Each entry's totals cover every
 * complete job of its workflow: the core once read all of them into memory
 * on its event loop (0.9 s and 214 MB for 100,000 jobs). Now the store sums
 * them on its search thread, so while a page over 200,000 jobs is read again
 * and again `/health/live` answers at once, the core's memory stays flat,
 * and the totals are exact.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { newObjectId } from '../../kernel/store/ids.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';
import { jobs } from '../fixtures/search-data.ts';
import { request } from '../helpers/core.ts';
import { crash, spawnCore } from '../helpers/process.ts';
import { figure, quantile, tempDir } from '../faults/support.ts';
import { timingSleep } from '../helpers/wait.ts';
import { passwordAccount, probeLive } from './support.ts';

const PASSWORD = 'metrics-attack-password';
const basic = (user: string): { authorization: string } => ({ authorization: `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}` });
const data = tempDir('metrics-attack');
const WORKFLOWS = 20;
const JOBS_EACH = 10_000;
/** Each job ran 1,500 ms, so each workflow's totalRunTime is known. */
const RUN_MS = 1500;

before(async () => {
  const store = SqliteStore.open({ dataDir: join(data.path, 'store'), collections: CORE_COLLECTIONS });
  const base = jobs[0]!;
  for (let w = 0; w < WORKFLOWS; w += 1) {
    const name = `busy-${String(w).padStart(2, '0')}`;
    await store.collection('workflows').insertOne({ _id: newObjectId(), name, type: 'automation', tasks: {}, transitions: {} });
    const started = 1_700_000_000_000 + w * 1e7;
    await store.collection('jobs').insertMany(Array.from({ length: JOBS_EACH }, (_, i) => ({ ...base, _id: newObjectId(started + i), name, status: 'complete', metrics: { start_time: started + i, end_time: started + i + RUN_MS } })));
  }
  await passwordAccount(store, 'engine-reader', PASSWORD, ['WorkFlowEngine', 'apiread']);
  await store.close();
});
after(() => data.remove());

/** The core's resident memory, from its own metrics (process_resident_memory_bytes). */
async function rss(url: string): Promise<number> {
  const res = await fetch(`${url}/metrics`, { headers: basic('admin') });
  const line = (await res.text()).split('\n').find((l) => l.startsWith('process_resident_memory_bytes '));
  assert.ok(line, 'the core reports its resident memory');
  return Number(line.split(' ')[1]);
}

test('job metrics over 200,000 jobs, asked again and again, leave the core live and its memory flat, with exact totals', { timeout: 180_000 }, async () => {
  const core = await spawnCore({ DATA_DIR: join(data.path, 'store'), ADMIN_PASSWORD: PASSWORD });
  try {
    await timingSleep(1000, 'the search thread opens its connection just after the core listens');
    const before = await rss(core.url);
    const probe = probeLive(core.url);
    const took: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      const started = performance.now();
      const res = await request(`${core.url}/workflow_engine/jobs/metrics?limit=${WORKFLOWS}&startsWith=busy-&startsWithField=workflow.name`, { headers: basic('engine-reader'), signal: AbortSignal.timeout(60_000) });
      took.push(performance.now() - started);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const body = res.body as { results: Array<{ workflow: { name: string }; jobsComplete: number; totalRunTime: number }>; total: number };
      assert.equal(body.total, WORKFLOWS);
      assert.equal(body.results.length, WORKFLOWS);
      for (const entry of body.results) {
        assert.equal(entry.jobsComplete, JOBS_EACH, entry.workflow.name);
        assert.equal(entry.totalRunTime, JOBS_EACH * RUN_MS, entry.workflow.name);
      }
    }
    const live = await probe.stop();
    const grew = (await rss(core.url)) - before;
    figure('job metrics over 200,000 jobs: each page, ms', took.map((t) => t.toFixed(0)).join(', '));
    figure('meanwhile /health/live p50 / p90 / max, ms', [0.5, 0.9, 1].map((q) => quantile(live, q).toFixed(1)).join(' / '));
    figure('the core\'s resident memory grew, MB', (grew / 1e6).toFixed(0));
    assert.ok(live.length >= 10, `probed ${live.length} times`);
    assert.ok(quantile(live, 0.9) < 100, `/health/live p90 ${quantile(live, 0.9).toFixed(0)} ms while the metrics were read`);
    // Read into memory, 200,000 job documents took some 400 MB; summed by the store, nothing is held.
    assert.ok(grew < 100e6, `the core's memory grew ${(grew / 1e6).toFixed(0)} MB`);
  } finally {
    await crash(core);
  }
});
