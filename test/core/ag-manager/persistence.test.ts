/**
 * Discovered gateway actions live in the store: two real core processes on
 * one SQLite file run what either discovered and stop running what either
 * undiscovered, and a job interrupted by a kill finds its gateway task after
 * the restart. Real processes, real SIGKILL, the gateway stand-in.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgSim } from '../../../tools/ag-sim/server.ts';
import type { AgSim } from '../../../tools/ag-sim/server.ts';
import { request } from '../../helpers/core.ts';
import { delayTask, workflow } from '../../helpers/engine.ts';
import { crash, spawnCore } from '../../helpers/process.ts';
import type { CoreProcess } from '../../helpers/process.ts';
import { eventually } from '../../helpers/wait.ts';

const PASSWORD = 'gm-persist-password';
const AG_USER = 'ops';
const AG_PASSWORD = 'gw-persist-pw';
const ADAPTER = 'lab gateway';
const auth = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };

let sim: AgSim;
const dirs: string[] = [];
const running: CoreProcess[] = [];

before(async () => {
  sim = await startAgSim({ username: AG_USER, password: AG_PASSWORD, scripts: [{ name: 'hello.py' }] });
});
after(async () => {
  for (const p of running) await crash(p);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await sim.close();
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'iap-gm-persist-'));
  dirs.push(dir);
  return dir;
}

async function start(dir: string): Promise<CoreProcess> {
  const adapters = [{ name: ADAPTER, type: 'gateway', baseUrl: sim.url, credentials: { username: AG_USER, password: AG_PASSWORD } }];
  const p = await spawnCore({ DATA_DIR: dir, ADMIN_PASSWORD: PASSWORD, ADAPTERS: JSON.stringify(adapters), PROCESS_TASKS_ON_START: 'true' });
  running.push(p);
  return p;
}

async function call(core: CoreProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  return request(`${core.url}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

const adapterPath = `/ag-manager/actions/${encodeURIComponent(ADAPTER)}`;
const script = { name: 'script:hello.py', app: ADAPTER, type: 'automatic', location: 'Adapter', variables: { incoming: { args: { device: 'r1' } }, outgoing: { result: '$var.job.result' } } };

async function createWorkflow(core: CoreProcess, wf: Record<string, unknown>): Promise<void> {
  const res = await call(core, 'POST', '/automation-studio/automations', { automation: wf });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

type Job = { status: string; error?: Array<{ task: string; message: unknown }>; variables: Record<string, unknown> };

async function runJob(core: CoreProcess, name: string): Promise<string> {
  const res = await call(core, 'POST', '/operations-manager/jobs/start', { workflow: name });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: { _id: string } }).data._id;
}

/** The job once it has ended in the core process (polled: another process's engine cannot be asked to be idle), or as it last was. */
async function finished(core: CoreProcess, id: string, timeoutMs = 15_000): Promise<Job> {
  let job = null as Job | null;
  await eventually(async () => {
    job = ((await call(core, 'GET', `/operations-manager/jobs/${id}`)).body as { data: Job }).data;
    return job.status === 'complete' || job.status === 'error';
  }, { timeoutMs, everyMs: 100 }).catch(() => undefined);
  return job!;
}

test('two core processes on one SQLite file: one discovers, the other runs the task; one undiscovers, the other no longer can', async () => {
  const dir = dataDir();
  const a = await start(dir);
  const b = await start(dir);
  await createWorkflow(a, workflow('hello-shared', { a1b2: script }, [['workflow_start', 'a1b2'], ['a1b2', 'workflow_end']]));
  assert.equal((await call(a, 'GET', adapterPath)).status, 200);
  const before = sim.calls.length;
  const ran = await finished(b, await runJob(b, 'hello-shared'));
  assert.equal(ran.status, 'complete', JSON.stringify(ran.error));
  assert.equal((ran.variables['result'] as { status: string }).status, 'success');
  assert.ok(sim.calls.slice(before).some((c) => c.path === '/api/v2.0/scripts/hello.py/execute'));

  assert.deepEqual((await call(b, 'DELETE', adapterPath)).body, { adapterId: ADAPTER, removed: 1, tasks: ['script:hello.py'] });
  const refused = await finished(a, await runJob(a, 'hello-shared'));
  assert.equal(refused.status, 'error');
  assert.equal(refused.error?.find((e) => e.task === 'a1b2')?.message, `No task ${ADAPTER}.script:hello.py is available`);
  // Undiscovering again, from either, finds nothing left.
  assert.deepEqual((await call(a, 'DELETE', '/ag-manager/actions')).body, { results: [], total: 0 });
  await crash(a);
  await crash(b);
});

test('a job interrupted by a kill finds its gateway task after the restart, without discovering again', async () => {
  const dir = dataDir();
  const first = await start(dir);
  assert.equal((await call(first, 'GET', adapterPath)).status, 200);
  const wf = workflow('hello-after-restart', { d1: delayTask(1.5), a1b2: script }, [['workflow_start', 'd1'], ['d1', 'a1b2'], ['a1b2', 'workflow_end']]);
  await createWorkflow(first, wf);
  const id = await runJob(first, 'hello-after-restart');
  await eventually(async () => ((await call(first, 'GET', `/operations-manager/jobs/${id}`)).body as { data: { tasks: Record<string, { status: string }> } }).data.tasks['d1']?.status === 'running', { what: 'd1 running' });
  await crash(first);
  const second = await start(dir);
  const job = await finished(second, id);
  assert.equal(job.status, 'complete', JSON.stringify(job.error));
  assert.equal((job.variables['result'] as { stdout: string }).stdout, 'scripts hello.py ran with {"device":"r1"}');
  await crash(second);
});
