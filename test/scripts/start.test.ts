/**
 * `npm start` (scripts/start.ts) with real processes: the core killed with
 * SIGKILL is started again on its port after the first pause, a second
 * death in a row waits twice as long, and the gateway serves throughout;
 * SIGTERM then stops both services and npm start itself exits 0.
 */
import { spawn } from 'node:child_process';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKOFF, pauseBefore } from '../../scripts/supervise.ts';
import { ADMIN_PASSWORD, figure, login, tempDir, timed } from '../faults/support.ts';
import { eventually as poll } from '../helpers/wait.ts';
import { storeEnv } from '../helpers/stores.ts';
import { freePort } from '../helpers/free-port.ts';

const data = tempDir('npm-start');
after(() => data.remove());

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('the pause before a restart doubles from 0.5 s to at most 30 s', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 60].map((n) => pauseBefore(n)), [500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  assert.equal(BACKOFF.stableMs, 60_000);
});

/** Polls an async check until it holds; throws after `ms`, naming what was awaited (what the services logged, by then). */
async function eventually(check: () => Promise<boolean>, ms: number, what: () => string): Promise<void> {
  await poll(check, { timeoutMs: ms, everyMs: 100 }).catch(() => {
    throw new Error(`timed out waiting for ${what()}`);
  });
}

test('a killed core is started again on its port while the gateway serves on, and SIGTERM stops both', { timeout: 120_000 }, async () => {
  const [corePort, gatewayPort] = [await freePort(), await freePort()];
  // MONGO_URL only as storeEnv gives it (a database of its own); the run's own would name a shared one.
  const env = { ...process.env, MONGO_URL: '', ...storeEnv(data.path), ADMIN_PASSWORD, CORE_PORT: String(corePort), PORT: String(gatewayPort), CORE_URL: `http://127.0.0.1:${corePort}`, LOG_LEVEL: 'warn' };
  const start = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--demo-jobs', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  start.stdout.on('data', (c: Buffer) => (out += c.toString()));
  start.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => start.once('exit', (code) => resolve(code)));
  const pids = (script: string): number[] => [...out.matchAll(new RegExp(`${script} started \\(pid (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));
  const gateway = `http://127.0.0.1:${gatewayPort}`;
  const core = `http://127.0.0.1:${corePort}`;
  const up = async (url: string): Promise<boolean> => (await timed(url, { timeoutMs: 2000 })).status === 200;
  const log = (): string => out;
  try {
    await eventually(async () => (await up(`${core}/health/live`)) && (await up(`${gateway}/gateway/health/live`)), 40_000, () => `both services listening: ${log()}`);
    const token = await login(gateway);
    const jobs = async (): Promise<number> => (await timed(`${gateway}/operations-manager/jobs?limit=1`, { headers: { authorization: `Bearer ${token}` }, timeoutMs: 5000 })).status;
    assert.equal(await jobs(), 200);
    const [firstCore] = pids('core/src/main.ts');
    const [gatewayPid] = pids('gateway/src/main.ts');
    assert.ok(firstCore && gatewayPid, log());

    const killedAt = performance.now();
    process.kill(firstCore, 'SIGKILL');
    await eventually(async () => out.includes('core/src/main.ts stopped (SIGKILL); starting it again in 0.5 s (restart 1 in a row)'), 10_000, () => `the restart to be logged: ${log()}`);
    assert.ok(await up(`${gateway}/gateway/health/live`), 'the gateway answers while the core is down');
    await eventually(async () => pids('core/src/main.ts').length === 2 && (await up(`${core}/health/live`)), 40_000, () => `the core back on its port: ${log()}`);
    figure('npm start: core killed to core answering again', `${Math.round(performance.now() - killedAt)} ms (0.5 s of it the pause)`);
    assert.equal(await jobs(), 200, 'a call through the gateway reaches the new core');

    // A second death in a row: the pause doubles.
    process.kill(pids('core/src/main.ts')[1]!, 'SIGKILL');
    await eventually(async () => out.includes('starting it again in 1 s (restart 2 in a row)'), 10_000, () => `the second restart to be logged: ${log()}`);
    await eventually(async () => pids('core/src/main.ts').length === 3 && (await up(`${core}/health/live`)), 40_000, () => `the core back again: ${log()}`);
    assert.equal(await jobs(), 200);
    assert.deepEqual(pids('gateway/src/main.ts'), [gatewayPid], 'the gateway was never restarted');

    start.kill('SIGTERM');
    assert.equal(await exited, 0, log());
    const lastCore = pids('core/src/main.ts')[2]!;
    await eventually(async () => !alive(lastCore) && !alive(gatewayPid), 5000, () => 'both services gone');
    assert.doesNotMatch(out, /starting it again in \d+ s \(restart 3/, 'nothing is restarted while stopping');
  } finally {
    // A failed run must leave no service behind holding the ports (and this test's pipes).
    if (start.exitCode === null) start.kill('SIGKILL');
    for (const pid of [...pids('core/src/main.ts'), ...pids('gateway/src/main.ts')]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
});
