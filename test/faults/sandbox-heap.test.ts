/**
 * A mapping that allocates past the sandbox's heap limit, 50 times in a row,
 * against the real core as its own process: every run answers a clear 400
 * (the memory limit's, or under heavy load the time limit's), and afterwards the same core process (it never exited)
 * still answers its liveness probe and runs a normal transformation. With
 * evaluators as worker threads this once aborted the whole core (V8's
 * "Reached heap limit" from the worker's isolate). And an evaluator stuck in
 * one call when its core is killed does not live on, spinning, as an orphan.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { crash, spawnCore } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { ADMIN_PASSWORD, figure, login, quantile, tempDir, timed } from './support.ts';
import { eventually } from '../helpers/wait.ts';

const data = tempDir('sandbox-heap');
let core: CoreProcess | null = null;
after(async () => {
  if (core) await crash(core);
  data.remove();
});

/** The mapping of the issue: ten million numbers, doubled, in one evaluation. */
const GREEDY = '$count([1..9999999].($ * 2))';
const RUNS = 50;

test(`${RUNS} mappings in a row that run out of heap each answer 400, and the same core process serves on`, { timeout: 120_000 }, async () => {
  core = await spawnCore({ DATA_DIR: data.path, ADMIN_PASSWORD });
  const pid = core.child.pid;
  const token = await login(core.url);
  const call = (method: string, path: string, body: unknown) =>
    timed(`${core!.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), timeoutMs: 20_000 });
  const create = async (name: string, mapping: string): Promise<string> => {
    const res = await call('POST', '/transformations/', { name, incoming: [], outgoing: [{ $id: 'out' }], mapping: `{"out": ${mapping}}` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body as { _id: string })._id;
  };
  const greedy = await create('Greedy', GREEDY);
  const plain = await create('Plain', '1 + 1');

  const answers: string[] = [];
  const took: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const res = await call('POST', `/transformations/${greedy}`, { incoming: {} });
    answers.push(`${res.status} ${(res.body as { message?: string } | null)?.message ?? res.error}`);
    took.push(res.ms);
  }
  figure('heap-limit answer', `median ${Math.round(quantile(took, 0.5))} ms, slowest ${Math.round(Math.max(...took))} ms (${RUNS} runs, each starting a fresh evaluator)`);
  const outOfMemory = `400 The mapping of transformation "Greedy" was stopped: it used more than 128 MB of memory`;
  // On a loaded machine the 1000 ms time limit can stop a run before its heap fills; that is the sandbox's
  // other clean answer. Most runs must still reach the heap limit, or this test would prove nothing about it.
  const outOfTime = `400 The mapping of transformation "Greedy" was stopped: it ran longer than 1000 ms`;
  assert.deepEqual(answers.filter((a) => a !== outOfMemory && a !== outOfTime), [], 'every run answers one of the sandbox limits\' 400s');
  const memoryRuns = answers.filter((a) => a === outOfMemory).length;
  assert.ok(memoryRuns >= RUNS / 2, `${memoryRuns} of ${RUNS} runs reached the heap limit; at least half must, or the heap path went untested`);

  assert.equal(core.child.exitCode, null, 'the core process is still running');
  assert.equal(core.child.signalCode, null, 'the core process was not killed');
  assert.equal(core.child.pid, pid);
  const live = await timed(`${core.url}/health/live`);
  assert.deepEqual([live.status, live.body], [200, { status: 'ok' }]);
  const normal = await call('POST', `/transformations/${plain}`, { incoming: {} });
  assert.deepEqual([normal.status, normal.body], [200, { out: 2 }]);
});

/** Running, not yet gone or a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

test('an evaluator stuck in one call ends soon after its core is killed', { timeout: 30_000, skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const owner = spawn(process.execPath, ['--import', 'tsx', 'test/faults/stuck-evaluator.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let evaluator = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      owner.stdout.on('data', (c: Buffer) => (c.toString().includes('stuck') ? resolve() : undefined));
      owner.once('exit', () => reject(new Error('the owner exited early')));
    });
    const children = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(owner.pid)], { encoding: 'utf8' });
    evaluator = Number(/^\s*(\d+) .*evaluator\.cjs/m.exec(children)?.[1]);
    assert.ok(evaluator > 0, children);
    assert.ok(running(evaluator), 'the evaluator is busy');
    owner.kill('SIGKILL');
    await eventually(() => !running(evaluator), { timeoutMs: 5000, everyMs: 100 }).catch(() => undefined);
    assert.equal(running(evaluator), false, 'the orphaned evaluator ended');
  } finally {
    owner.kill('SIGKILL');
    if (evaluator > 0 && running(evaluator)) process.kill(evaluator, 'SIGKILL');
  }
});
