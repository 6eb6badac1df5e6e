/**
 * A core killed in the middle of a job: with processTasksOnStart the next
 * start runs the interrupted task again and the job completes; without it the
 * job is left exactly as it was. Real processes, real SIGKILL.
 *
 * The second start without processTasksOnStart runs in this process, on the
 * same store, through the same steps as core/src/main.ts (bootstrap, then
 * `engine.recover()`), so the test can wait for `engine.idle()` and compare
 * the job with what the kill left, instead of sleeping past the task's
 * delay and hoping nothing moved.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request, startCore } from '../../helpers/core.ts';
import { workflow, delayTask, newVariable } from '../../helpers/engine.ts';
import { crash, spawnCore } from '../../helpers/process.ts';
import type { CoreProcess } from '../../helpers/process.ts';
import { openStoreOf, storeEnv } from '../../helpers/stores.ts';
import { eventually } from '../../helpers/wait.ts';

const PASSWORD = 'restart-test-password';
const dirs: string[] = [];
const running: CoreProcess[] = [];
after(async () => {
  for (const p of running) await crash(p);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(env: Record<string, string>, processTasksOnStart: boolean): Promise<CoreProcess> {
  const p = await spawnCore({ ...env, ADMIN_PASSWORD: PASSWORD, PROCESS_TASKS_ON_START: String(processTasksOnStart) });
  running.push(p);
  return p;
}

const auth = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };

async function jobOf(url: string, id: string): Promise<{ status: string; tasks: Record<string, { status: string; iterations: string[] }> }> {
  const res = await request(`${url}/operations-manager/jobs/${id}`, { headers: auth });
  return (res.body as { data: { status: string; tasks: Record<string, { status: string; iterations: string[] }> } }).data;
}

/** Starts a job whose first task takes a while, and kills the core while that task runs. */
async function interruptedJob(env: Record<string, string>): Promise<string> {
  const first = await start(env, true);
  const wf = workflow('interrupted', { d1: delayTask(1.5), a2: newVariable('after', 'restart') }, [['workflow_start', 'd1'], ['d1', 'a2'], ['a2', 'workflow_end']]);
  assert.equal((await request(`${first.url}/automation-studio/automations`, { method: 'POST', headers: auth, body: JSON.stringify({ automation: wf }) })).status, 200);
  const started = await request(`${first.url}/operations-manager/jobs/start`, { method: 'POST', headers: auth, body: JSON.stringify({ workflow: 'interrupted' }) });
  const id = (started.body as { data: { _id: string } }).data._id;
  await eventually(async () => (await jobOf(first.url, id)).tasks['d1']!.status === 'running', { what: 'd1 running' });
  await crash(first);
  return id;
}

test('with processTasksOnStart true a job interrupted by a kill completes after the restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-restart-'));
  dirs.push(dir);
  const env = storeEnv(dir);
  const id = await interruptedJob(env);
  const second = await start(env, true);
  // The rerun is a real 1.5 s delay task in another process: nothing to tick there, so poll for its end.
  const job = await eventually(async () => {
    const j = await jobOf(second.url, id);
    return j.status === 'complete' ? j : null;
  }, { timeoutMs: 10_000, what: 'the resumed job complete' });
  assert.equal(job.tasks['d1']!.iterations.length, 1, 'the interrupted iteration ran again, not a new one');
  assert.equal(job.tasks['a2']!.status, 'complete');
  await crash(second);
});

test('with processTasksOnStart false the interrupted job is left untouched', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-restart-'));
  dirs.push(dir);
  const env = storeEnv(dir);
  const id = await interruptedJob(env);
  const store = await openStoreOf(env);
  const left = await store.collection('jobs').findById(id);
  const second = await startCore(store, { PROCESS_TASKS_ON_START: 'false' });
  try {
    assert.equal(await second.core.engine.recover(), 0, 'nothing resumed');
    await second.core.engine.idle();
    assert.deepEqual(await store.collection('jobs').findById(id), left, 'the job document is exactly as the kill left it');
    const job = await jobOf(second.url, id);
    assert.equal(job.status, 'running');
    assert.equal(job.tasks['d1']!.status, 'running');
    assert.equal(job.tasks['a2']!.status, 'incomplete');
  } finally {
    await second.close();
    await store.close();
  }
});
