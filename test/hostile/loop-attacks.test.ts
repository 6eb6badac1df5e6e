/**
 * Workflows built to hold the engine: automatic tasks that lead into each
 * other (a cycle, a task into itself, a poll on a condition that never
 * holds, a push that grows a variable, one that doubles it), a workflow that
 * starts itself as a child, one that starts three copies of itself, and two
 * that start each other. All are saved and started at once on a real core
 * process with its shipped limits (but smaller jobs-per-tree and job-size
 * bounds, so the attacks end in seconds). During the attack every answer
 * comes within 1 s and `/health/live` within 100 ms (at the 90th percentile,
 * for a shared machine); afterwards every attacking job has ended in error
 * naming the limit it reached. A stall shows here as a timeout.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from '../helpers/core.ts';
import type { JsonResponse } from '../helpers/core.ts';
import { newVariable, workflow } from '../helpers/engine.ts';
import { crash, spawnCore } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { timingSleep } from '../helpers/wait.ts';

const PASSWORD = 'loop-attack-password';
const auth = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };
let core: CoreProcess;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'iap-loop-attack-'));
  // 10,000 child jobs take a minute here, 300 a few seconds; a variable doubled up to 8 MB of JSON holds
  // the core for seconds (RELIABILITY.md), up to 1 MB for a few milliseconds.
  core = await spawnCore({ DATA_DIR: dir, ADMIN_PASSWORD: PASSWORD, ENGINE_MAX_JOBS_PER_TREE: '300', ENGINE_MAX_JOB_BYTES: '1048576' });
});
after(async () => {
  await crash(core);
  rmSync(dir, { recursive: true, force: true });
});

/** Every answer of the attack, with how long it took; none may take a second. */
const answers: Array<{ what: string; took: number; status: number }> = [];

async function send(path: string, init: RequestInit = {}, within = 1000): Promise<JsonResponse> {
  const what = `${init.method ?? 'GET'} ${path}`;
  const started = performance.now();
  const res = await request(`${core.url}${path}`, { headers: auth, ...init, signal: AbortSignal.timeout(within) }).catch((err: unknown) => assert.fail(`${what} did not answer within ${within} ms: ${String(err)}`));
  if (within === 1000) answers.push({ what, took: performance.now() - started, status: res.status });
  return res;
}

const childJob = (name: string, loopType = '', dataArray: unknown[] = []) => ({ name: 'childJob', app: 'WorkFlowEngine', type: 'automatic', actor: 'job', variables: { incoming: { task: '', workflow: name, variables: {}, data_array: dataArray, transformation: '', loopType }, outgoing: { job_details: null } } });
const push = { name: 'push', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { job_variable: 'grown', item_to_push: 'x'.repeat(100) }, outgoing: {} } };
const never = { name: 'evaluation', app: 'WorkFlowEngine', type: 'automatic', variables: { incoming: { all_true_flag: true, evaluation_groups: [{ all_true_flag: true, evaluations: [{ operand_1: { task: 'static', variable: 1 }, operator: '==', operand_2: { task: 'static', variable: 2 } }] }] }, outgoing: { return_value: null } } };

const RUNS = 'job exceeded workflowEngine.maxTaskRunsPerJob (10000)';
const DEPTH = 'job exceeded workflowEngine.maxChildJobDepth (16)';
const TREE = 'job exceeded workflowEngine.maxJobsPerTree (300)';
const BYTES = 'job exceeded workflowEngine.maxJobBytes (1048576)';
const doubling = { name: 'push', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { job_variable: 'arr', item_to_push: '$var.job.arr' }, outgoing: {} } };

/** Each attack: its workflow(s), and the message the job that reaches the limit ends with. */
const attacks: Array<{ start: string; workflows: Array<Record<string, unknown>>; limit: string }> = [
  { start: 'cycle', limit: RUNS, workflows: [workflow('cycle', { a1: newVariable('x', 1), a2: newVariable('y', 2) }, [['workflow_start', 'a1'], ['a1', 'a2'], ['a2', 'a1'], ['a1', 'workflow_end', 'error']])] },
  { start: 'self', limit: RUNS, workflows: [workflow('self', { a1: newVariable('x', 1) }, [['workflow_start', 'a1'], ['a1', 'a1'], ['a1', 'workflow_end', 'error']])] },
  { start: 'poll', limit: RUNS, workflows: [workflow('poll', { e1: never }, [['workflow_start', 'e1'], ['e1', 'e1', 'failure'], ['e1', 'workflow_end']])] },
  { start: 'grow', limit: RUNS, workflows: [workflow('grow', { b1: push }, [['workflow_start', 'b1'], ['b1', 'b1'], ['b1', 'workflow_end', 'error']])] },
  { start: 'double', limit: BYTES, workflows: [workflow('double', { b1: doubling }, [['workflow_start', 'b1'], ['b1', 'b1'], ['b1', 'workflow_end', 'error']])] },
  { start: 'recurse', limit: DEPTH, workflows: [workflow('recurse', { c1: childJob('recurse') }, [['workflow_start', 'c1'], ['c1', 'workflow_end']])] },
  { start: 'fan', limit: TREE, workflows: [workflow('fan', { c1: childJob('fan', 'parallel', [{}, {}, {}]) }, [['workflow_start', 'c1'], ['c1', 'workflow_end']])] },
  { start: 'ping', limit: DEPTH, workflows: [workflow('ping', { c1: childJob('pong') }, [['workflow_start', 'c1'], ['c1', 'workflow_end']]), workflow('pong', { c1: childJob('ping') }, [['workflow_start', 'c1'], ['c1', 'workflow_end']])] },
];

interface Job {
  _id: string;
  name: string;
  status: string;
  ancestors: string[];
  error: Array<{ message: string }>;
}

/** Jobs still running: a count, as a client polling for progress asks. */
async function running(): Promise<number> {
  const res = await send('/operations-manager/jobs?equals[status]=running&limit=0');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { metadata: { total: number } }).metadata.total;
}

/** Every job, once the attack is over: a page of up to 1,000 (the attacks make about 400). */
async function jobs(): Promise<Job[]> {
  const res = await send('/operations-manager/jobs?include=_id,name,status,ancestors,error&limit=1000', {}, 10_000);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: Job[] }).data;
}

test('looping and self-starting workflows run beside prompt answers and end in error at their limits', { timeout: 120_000 }, async (t) => {
  for (const attack of attacks) {
    for (const wf of attack.workflows) {
      const saved = await send('/automation-studio/automations', { method: 'POST', body: JSON.stringify({ automation: wf }) });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    }
  }
  const roots = new Map<string, string>();
  for (const attack of attacks) {
    const res = await send('/operations-manager/jobs/start', { method: 'POST', body: JSON.stringify({ workflow: attack.start }) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    roots.set(attack.start, (res.body as { data: { _id: string } }).data._id);
  }
  const live: number[] = [];
  const until = Date.now() + 60_000;
  while ((await running()) > 0 && Date.now() < until) {
    const started = performance.now();
    assert.equal((await send('/health/live')).status, 200);
    live.push(performance.now() - started);
    // Other work the attack must not hold up: a search (the count above) and a save. (A login's password hashing competes
    // for the shared CPUs whatever the engine does; loop-process.test.ts times it after a restart.)
    assert.equal((await send('/automation-studio/automations', { method: 'POST', body: JSON.stringify({ automation: workflow(`beside-${live.length}`, { a1: newVariable('x', 1) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]) }) })).status, 200);
    await timingSleep(50, 'a timing test: liveness and other work are sampled every 50 ms for as long as the attack runs');
  }
  const now = await jobs();
  assert.ok(live.length >= 5, `the attack ended after ${live.length} probes: too quick to show anything`);
  for (const attack of attacks) {
    const tree = now.filter((j) => j.ancestors[0] === roots.get(attack.start));
    const limited = tree.filter((j) => j.error.some((e) => e.message === attack.limit));
    // One job reaches a run or depth limit; under a tree limit, every job refused its children does.
    if (attack.limit === TREE) assert.ok(limited.length > 1 && tree.length <= 300, `${attack.start}: ${tree.length} jobs, ${limited.length} refused`);
    else assert.equal(limited.length, 1, `${attack.start}: ${JSON.stringify(tree.map((j) => [j.ancestors.length, j.status, j.error]))}`);
    assert.ok(tree.every((j) => j.status === 'error'), `${attack.start}: every job of the tree ends in error`);
    if (attack.limit === DEPTH) assert.equal(limited[0]!.ancestors.length, 17, `${attack.start}: the job at depth 16 is the one refused a child`);
  }
  live.sort((a, b) => a - b);
  const p90 = live[Math.floor(live.length * 0.9)]!;
  const slowest = answers.reduce((a, b) => (b.took > a.took ? b : a));
  t.diagnostic(`${live.length} liveness probes: p50 ${live[Math.floor(live.length / 2)]!.toFixed(1)} ms, p90 ${p90.toFixed(1)} ms; slowest of ${answers.length} answers: ${slowest.what} ${slowest.took.toFixed(0)} ms`);
  assert.ok(p90 < 100, `liveness p90 ${p90} ms`);
  assert.ok(answers.every((a) => a.status < 500), JSON.stringify(answers.filter((a) => a.status >= 500)));
});
