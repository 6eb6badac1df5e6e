/**
 * A core killed in the middle of a job: with processTasksOnStart the next
 * start runs the interrupted task again and the job completes; without it the
 * job is left exactly as it was. Real processes, real SIGKILL.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from '../../helpers/core.ts';
import { workflow, delay, newVariable } from '../../helpers/engine.ts';
import { crash, spawnCore } from '../../helpers/process.ts';
import type { CoreProcess } from '../../helpers/process.ts';
import { storeEnv } from '../../helpers/stores.ts';

const PASSWORD = 'restart-test-password';
const dirs: string[] = [];
const running: CoreProcess[] = [];
after(async () => {
  for (const p of running) await crash(p);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string, processTasksOnStart: boolean): Promise<CoreProcess> {
  const p = await spawnCore({ ...storeEnv(dataDir), ADMIN_PASSWORD: PASSWORD, PROCESS_TASKS_ON_START: String(processTasksOnStart) });
  running.push(p);
  return p;
}

const auth = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };

async function jobOf(url: string, id: string): Promise<{ status: string; tasks: Record<string, { status: string; iterations: string[] }> }> {
  const res = await request(`${url}/operations-manager/jobs/${id}`, { headers: auth });
  return (res.body as { data: { status: string; tasks: Record<string, { status: string; iterations: string[] }> } }).data;
}

/** Starts a job whose first task takes a while, and kills the core while that task runs. */
async function interruptedJob(dataDir: string): Promise<string> {
  const first = await start(dataDir, true);
  const wf = workflow('interrupted', { d1: delay(1.5), a2: newVariable('after', 'restart') }, [['workflow_start', 'd1'], ['d1', 'a2'], ['a2', 'workflow_end']]);
  assert.equal((await request(`${first.url}/automation-studio/automations`, { method: 'POST', headers: auth, body: JSON.stringify({ automation: wf }) })).status, 200);
  const started = await request(`${first.url}/operations-manager/jobs/start`, { method: 'POST', headers: auth, body: JSON.stringify({ workflow: 'interrupted' }) });
  const id = (started.body as { data: { _id: string } }).data._id;
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await jobOf(first.url, id)).tasks['d1']!.status, 'running');
  await crash(first);
  return id;
}

test('with processTasksOnStart true a job interrupted by a kill completes after the restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-restart-'));
  dirs.push(dir);
  const id = await interruptedJob(dir);
  const second = await start(dir, true);
  const until = Date.now() + 10_000;
  let job = await jobOf(second.url, id);
  while (job.status !== 'complete' && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    job = await jobOf(second.url, id);
  }
  assert.equal(job.status, 'complete');
  assert.equal(job.tasks['d1']!.iterations.length, 1, 'the interrupted iteration ran again, not a new one');
  assert.equal(job.tasks['a2']!.status, 'complete');
  await crash(second);
});

test('with processTasksOnStart false the interrupted job is left untouched', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-restart-'));
  dirs.push(dir);
  const id = await interruptedJob(dir);
  const second = await start(dir, false);
  await new Promise((r) => setTimeout(r, 2500));
  const job = await jobOf(second.url, id);
  assert.equal(job.status, 'running');
  assert.equal(job.tasks['d1']!.status, 'running');
  assert.equal(job.tasks['a2']!.status, 'incomplete');
  await crash(second);
});
