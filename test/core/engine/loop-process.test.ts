/**
 * A looping job in a real core process: its memory stays bounded while the
 * loop runs, and a core killed with the loop running answers its first login
 * promptly after a restart, while the resumed loop goes on and can be
 * cancelled. Here a stall shows as a timeout, which an in-process test
 * could not report.
 *
 * A timing test: the first test measures a rate, memory and latency over
 * seconds of real looping, and the last check proves a negative in a child
 * process, where `Engine.idle()` cannot be reached; each real wait says why.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from '../../helpers/core.ts';
import type { JsonResponse } from '../../helpers/core.ts';
import { newVariable, workflow } from '../../helpers/engine.ts';
import { crash, spawnCore } from '../../helpers/process.ts';
import type { CoreProcess } from '../../helpers/process.ts';
import { eventually, timingSleep } from '../../helpers/wait.ts';

const PASSWORD = 'loop-process-password';
const dirs: string[] = [];
const running: CoreProcess[] = [];
after(async () => {
  for (const p of running) await crash(p);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const auth = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };

async function start(dataDir: string): Promise<CoreProcess> {
  const p = await spawnCore({ DATA_DIR: dataDir, ADMIN_PASSWORD: PASSWORD, ENGINE_MAX_TASK_RUNS_PER_JOB: '10000000' });
  running.push(p);
  return p;
}

/** A request that must answer within `ms`; a stalled core fails it instead of hanging the test. */
async function within(ms: number, url: string, init: RequestInit = {}): Promise<JsonResponse & { took: number }> {
  const started = performance.now();
  const res = await request(url, { ...init, signal: AbortSignal.timeout(ms) }).catch((err: unknown) => assert.fail(`${init.method ?? 'GET'} ${url} did not answer within ${ms} ms: ${String(err)}`));
  return { ...res, took: performance.now() - started };
}

async function runs(url: string, jobId: string): Promise<number> {
  const res = await within(2000, `${url}/operations-manager/tasks?equals[job._id]=${jobId}&limit=0`, { headers: auth });
  return (res.body as { metadata: { total: number } }).metadata.total;
}

function rssMb(p: CoreProcess): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.child.pid}/status`, 'utf8'))![1]!;
  return Number(kb) / 1024;
}

async function startLoop(url: string): Promise<string> {
  const wf = workflow('loop', { a1: newVariable('x', 1), a2: newVariable('y', 2) }, [['workflow_start', 'a1'], ['a1', 'a2'], ['a2', 'a1'], ['a1', 'workflow_end', 'error']]);
  assert.equal((await within(2000, `${url}/automation-studio/automations`, { method: 'POST', headers: auth, body: JSON.stringify({ automation: wf }) })).status, 200);
  const started = await within(2000, `${url}/operations-manager/jobs/start`, { method: 'POST', headers: auth, body: JSON.stringify({ workflow: 'loop' }) });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  return (started.body as { data: { _id: string } }).data._id;
}

test('a looping job keeps the core answering and its memory bounded', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-loop-'));
  dirs.push(dir);
  const core = await start(dir);
  const id = await startLoop(core.url);
  await timingSleep(1000, 'the RSS baseline is taken after a second of looping, once the heap has grown to its working size');
  const baseline = rssMb(core);
  const firstRuns = await runs(core.url, id);
  let peak = baseline;
  const live: number[] = [];
  for (let i = 0; i < 20; i += 1) {
    live.push((await within(1000, `${core.url}/health/live`)).took);
    peak = Math.max(peak, rssMb(core));
    await timingSleep(200, 'liveness and RSS are sampled every 200 ms over 4 s of looping; the runs per second are counted over the same span');
  }
  const lastRuns = await runs(core.url, id);
  assert.ok(lastRuns - firstRuns > 1000, `the loop made ${lastRuns - firstRuns} runs in 4 s`);
  // Before slicing, memory grew by some 75 MB a second past 1.4 GB; a looping core now levels off near 350 MB.
  assert.ok(peak < 512, `RSS went from ${baseline.toFixed(0)} to ${peak.toFixed(0)} MB`);
  live.sort((a, b) => a - b);
  t.diagnostic(`runs/s ${((lastRuns - firstRuns) / 4).toFixed(0)}; RSS ${baseline.toFixed(0)} → ${peak.toFixed(0)} MB; liveness p50 ${live[10]!.toFixed(1)} max ${live[19]!.toFixed(1)} ms`);
  assert.ok(live[10]! < 100, `liveness took ${live.map((t) => t.toFixed(0)).join(', ')} ms`);
  await crash(core);
});

test('a core restarted with a runaway job in its store answers its first login promptly, and the loop goes on until cancelled', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-loop-'));
  dirs.push(dir);
  const first = await start(dir);
  const id = await startLoop(first.url);
  await eventually(async () => (await runs(first.url, id)) >= 1000, { timeoutMs: 20_000, what: 'a thousand runs of the loop in the store' });
  await crash(first);
  const second = await start(dir);
  const login = await within(1000, `${second.url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password: PASSWORD } }) });
  assert.equal(login.status, 200, JSON.stringify(login.body));
  const resumedAt = await runs(second.url, id);
  await eventually(async () => (await runs(second.url, id)) > resumedAt, { what: 'the resumed loop going on' });
  const cancel = await within(1000, `${second.url}/operations-manager/jobs/cancel`, { method: 'POST', headers: auth, body: JSON.stringify({ jobIds: [id] }) });
  assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
  const atCancel = await runs(second.url, id);
  await timingSleep(300, 'the loop runs in a child process, where Engine.idle() cannot be reached; the first test measures more than 250 runs a second, so a loop that went on would show dozens of runs in 300 ms');
  assert.equal(await runs(second.url, id), atCancel, 'a task ran after the cancel answered');
  await crash(second);
});
