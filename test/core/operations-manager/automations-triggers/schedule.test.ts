/**
 * Schedule triggers on the real core, and a second scheduler on the same
 * store standing for a second process: a due trigger starts its automation
 * exactly once and moves to its next window; missed windows run once
 * (`last`) or not at all (`none`); disabled triggers never fire. The window
 * arithmetic is also checked on its own.
 *
 * Neither scheduler's timer runs: each test polls both at once with
 * `tick()` and waits for the engine with `idle()`, so "nothing more ran" is
 * a count after a poll that had the chance, not a wait that hopes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../../../kernel/logger.ts';
import { createOmAutomations } from '../../../../core/src/operations-manager/automations/index.ts';
import { decide, plannedRun, windowFrom } from '../../../../core/src/operations-manager/triggers/schedule.ts';
import type { Scheduler } from '../../../../core/src/scheduler/scheduler.ts';
import { openTestStore } from '../../../helpers/stores.ts';
import { startCore } from '../../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../../helpers/core.ts';
import { newVariable, workflow } from '../../../helpers/engine.ts';

type Json = Record<string, unknown>;
const HOUR = 3_600_000;
const POLL_MS = 60_000; // the timers never run here: the tests tick

let core: RunningCore;
let secondProcess: Scheduler;

const send = (method: string, path: string, body?: unknown): Promise<JsonResponse> =>
  core.request(`/operations-manager${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
const data = (res: JsonResponse): Json => (res.body as { data: Json }).data;

/** One poll of both processes at the same moment, then the engine's work done; answers how many runs they made. */
async function pollBoth(): Promise<number> {
  const [first, second] = await Promise.all([core.core.triggerScheduler.tick(), secondProcess.tick()]);
  await core.core.engine.idle();
  return first + second;
}

/** A workflow of its own per test, so its jobs are counted by name. */
async function automationFor(name: string): Promise<string> {
  const wf = workflow(name, { a1b2: newVariable('ran', true) }, [['workflow_start', 'a1b2'], ['a1b2', 'workflow_end']]);
  const res = await core.request('/automation-studio/automations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ automation: wf }) });
  assert.equal(res.status, 200);
  return data(await send('POST', '/automations', { name: `${name} automation`, componentName: name }))['_id'] as string;
}

async function jobsOf(workflowName: string): Promise<Json[]> {
  const res = await send('GET', `/jobs?equals[name]=${encodeURIComponent(workflowName)}`);
  return (res.body as { data: Json[] }).data;
}

async function schedule(body: Json): Promise<Json> {
  const res = await send('POST', '/triggers', { type: 'schedule', ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return data(res);
}

/** As if every process had been down since `nextRunAt`. */
async function dueSince(triggerId: string, nextRunAt: number): Promise<void> {
  const doc = (await core.store.collection('triggers').findById(triggerId))!;
  await core.store.collection('triggers').replaceOne({ ...doc, nextRunAt, _rev: (doc['_rev'] as number) + 1 });
}

before(async () => {
  core = await startCore((await openTestStore()), { SCHEDULER_POLL_MS: String(POLL_MS) });
  const logger = createLogger({ level: 'error', service: 'second', silent: true });
  secondProcess = createOmAutomations({ store: core.store, engine: core.core.engine, authority: core.core.authority, logger, pollMs: POLL_MS, limits: core.config.search }).scheduler;
});
after(async () => {
  await core.core.triggerScheduler.stop();
  await secondProcess.stop();
  await core.core.engine.idle();
  await core.close();
});

test('a trigger created due now fires exactly once across two schedulers, its job completes, and it moves one interval on', async () => {
  const actionId = await automationFor('Sched Once');
  const firstRunAt = Date.now();
  const t = await schedule({ name: 'once', actionId, firstRunAt, repeatInterval: HOUR });
  assert.equal(t['nextRunAt'], firstRunAt);
  assert.equal(await pollBoth(), 1, 'one run, whichever scheduler claimed it');
  assert.equal(await pollBoth(), 0, 'and none on the next poll');
  const jobs = await jobsOf('Sched Once');
  assert.equal(jobs.length, 1);
  const ended = data(await send('GET', `/jobs/${jobs[0]!['_id'] as string}`));
  assert.equal(ended['status'], 'complete');
  assert.equal((ended['variables'] as Json)['ran'], true);
  const after = data(await send('GET', `/triggers/${t['_id'] as string}`));
  assert.equal(after['nextRunAt'], firstRunAt + HOUR);
  assert.equal(typeof after['lastRunAt'], 'number');
  assert.ok(!('lockedAt' in after), 'the scheduler\'s lock is not shown');
});

test('a one-off trigger runs once and then has no next run', async () => {
  const actionId = await automationFor('Sched One-off');
  const t = await schedule({ name: 'one-off', actionId, firstRunAt: Date.now() });
  assert.equal(await pollBoth(), 1);
  assert.equal(data(await send('GET', `/triggers/${t['_id'] as string}`))['nextRunAt'], null);
  assert.equal(await pollBoth(), 0);
  assert.equal((await jobsOf('Sched One-off')).length, 1);
});

test("processMissedRuns 'last' runs once for many missed windows, then waits for the next one", async () => {
  const actionId = await automationFor('Sched Last');
  // Half an hour out of phase with now, so the latest missed window is well past the grace period.
  const first = Date.now() + HOUR + 30 * 60_000;
  const t = await schedule({ name: 'last', actionId, firstRunAt: first, repeatInterval: HOUR, processMissedRuns: 'last' });
  const missedSince = first - 6 * HOUR;
  await dueSince(t['_id'] as string, missedSince);
  assert.equal(await pollBoth(), 1);
  assert.equal(await pollBoth(), 0);
  assert.equal((await jobsOf('Sched Last')).length, 1);
  assert.equal(data(await send('GET', `/triggers/${t['_id'] as string}`))['nextRunAt'], first - HOUR, 'the first window after now, in phase');
});

test("processMissedRuns 'none' skips missed windows without running and moves to the next one", async () => {
  const actionId = await automationFor('Sched None');
  const first = Date.now() + HOUR + 30 * 60_000;
  const t = await schedule({ name: 'none', actionId, firstRunAt: first, repeatInterval: HOUR, processMissedRuns: 'none' });
  await dueSince(t['_id'] as string, first - 6 * HOUR);
  await pollBoth();
  assert.equal(data(await send('GET', `/triggers/${t['_id'] as string}`))['nextRunAt'], first - HOUR);
  await pollBoth();
  assert.equal((await jobsOf('Sched None')).length, 0);
});

test('a disabled schedule trigger never fires, even when its time has come', async () => {
  const actionId = await automationFor('Sched Off');
  const t = await schedule({ name: 'off', actionId, firstRunAt: Date.now(), repeatInterval: HOUR, enabled: false });
  await dueSince(t['_id'] as string, Date.now() - 1000);
  assert.equal(await pollBoth(), 0);
  assert.equal((await jobsOf('Sched Off')).length, 0);
  const on = await send('PATCH', `/triggers/${t['_id'] as string}`, { enabled: true });
  assert.equal(on.status, 200);
  assert.equal(await pollBoth(), 1);
  assert.equal((await jobsOf('Sched Off')).length, 1);
});

test('window arithmetic: planned runs keep the phase, decisions follow the missed-run policy', () => {
  const grace = 60_000;
  assert.equal(windowFrom(1000, null, 500), 1000);
  assert.equal(windowFrom(1000, null, 1500), null);
  assert.equal(windowFrom(1000, 100, 1250), 1300);
  assert.equal(windowFrom(1000, 100, 1300), 1300);
  assert.equal(plannedRun({ enabled: false, firstRunAt: 0, repeatInterval: 10 }, 5, grace), null);
  assert.equal(plannedRun({ enabled: true, firstRunAt: 10 * HOUR - 1000, repeatInterval: HOUR }, 10 * HOUR, grace), 10 * HOUR - 1000, 'due within the grace: now');
  const now = 100 * HOUR;
  assert.deepEqual(decide({ nextRunAt: now - 1000, repeatInterval: HOUR, processMissedRuns: 'none' }, now, grace), { run: true, nextRunAt: now - 1000 + HOUR });
  assert.deepEqual(decide({ nextRunAt: now - 5 * HOUR - 1000, repeatInterval: HOUR, processMissedRuns: 'none' }, now, grace), { run: true, nextRunAt: now - 1000 + HOUR }, 'the latest window is on time');
  assert.deepEqual(decide({ nextRunAt: now - 5 * HOUR - 10 * 60_000, repeatInterval: HOUR, processMissedRuns: 'none' }, now, grace), { run: false, nextRunAt: now + 50 * 60_000 });
  assert.deepEqual(decide({ nextRunAt: now - 5 * HOUR - 10 * 60_000, repeatInterval: HOUR, processMissedRuns: 'last' }, now, grace), { run: true, nextRunAt: now + 50 * 60_000 });
  assert.deepEqual(decide({ nextRunAt: now - 2 * HOUR, repeatInterval: null, processMissedRuns: 'none' }, now, grace), { run: false, nextRunAt: null });
});
