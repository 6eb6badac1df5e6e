/**
 * A scheduled automation fires once across two core processes on the same
 * store: two real cores on one DATA_DIR, both polling every 50 ms, and
 * twenty automations that fall due at the same instant while both are
 * polling. Both processes read the same due batch and work through it, so
 * each claim races the other process; every automation must start exactly
 * one job, whichever process claims it.
 *
 * No sleep proves the "exactly once": the jobs are counted in the store after
 * both processes have stopped cleanly, and a clean stop waits for every poll
 * in progress to finish its run (Scheduler.stop), so a second start, had
 * there been one, is in the count.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from '../../helpers/core.ts';
import { newVariable, workflow } from '../../helpers/engine.ts';
import { crash, spawnCore, stop } from '../../helpers/process.ts';
import type { CoreProcess } from '../../helpers/process.ts';
import { openStoreOf, storeEnv } from '../../helpers/stores.ts';
import { eventually } from '../../helpers/wait.ts';

const PASSWORD = 'two-process-password';
const headers = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`, 'content-type': 'application/json' };
const dir = mkdtempSync(join(tmpdir(), 'iap-scheduler-'));
const running: CoreProcess[] = [];
after(async () => {
  for (const p of running) await crash(p);
  rmSync(dir, { recursive: true, force: true });
});

async function call(p: CoreProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  return request(`${p.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

test('a scheduled automation fires once across two core processes on the same store', { timeout: 60_000 }, async () => {
  const env = { ...storeEnv(dir), ADMIN_PASSWORD: PASSWORD, SCHEDULER_POLL_MS: '50' };
  // One after the other, so the first start's bootstrap is not raced.
  const first = await spawnCore(env);
  running.push(first);
  const second = await spawnCore(env);
  running.push(second);

  const wf = workflow('fire-once', { a1: newVariable('fired', true) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]);
  assert.equal((await call(first, 'POST', '/automation-studio/automations', { automation: wf })).status, 200);
  const due = new Date(Date.now() + 2500).toISOString();
  const COUNT = 20;
  const ids: string[] = [];
  for (let i = 0; i < COUNT; i += 1) {
    const made = await call(i % 2 === 0 ? first : second, 'POST', '/automation_catalog/automations', { name: `fire-once-${i}`, description: '' });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const id = (made.body as { _id: string })._id;
    const set = await call(second, 'PUT', `/automation_catalog/automations/${id}`, { options: { workflow: 'fire-once', formData: { index: i }, nextRunAt: due } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    ids.push(id);
  }

  type Listed = { lastRunAt: string | null; nextRunAt: string | null };
  let ran: Listed[] = [];
  // Both processes poll on their own timers (the race is the point): wait for every run to be recorded.
  await eventually(async () => {
    const list = await call(first, 'GET', '/automation_catalog/automations?startsWith=fire-once-&startsWithField=name');
    ran = (list.body as { results: Listed[] }).results;
    return ran.length === COUNT && ran.every((a) => a.lastRunAt !== null);
  }, { timeoutMs: 20_000, everyMs: 100, what: 'every automation run' }).catch(() => undefined);
  assert.equal(ran.length, COUNT);
  assert.ok(ran.every((a) => a.lastRunAt !== null && a.nextRunAt === null), JSON.stringify(ran));

  for (const p of [first, second]) {
    const jobs = await call(p, 'GET', '/operations-manager/jobs?equals[name]=fire-once&include=variables&limit=100');
    assert.equal(jobs.status, 200, JSON.stringify(jobs.body));
    const body = jobs.body as { data: Array<{ variables: { index: number } }>; metadata: { total: number } };
    assert.equal(body.metadata.total, COUNT, `one job per automation, not one per process; automations: ${JSON.stringify(ran)}; warnings: ${[...first.problems, ...second.problems].join('\n')}`);
    assert.deepEqual(body.data.map((j) => j.variables.index).sort((a, b) => a - b), ids.map((_, i) => i));
  }
  const warnings = [...first.problems, ...second.problems].join('\n');
  await stop(first);
  await stop(second);
  assert.equal(first.child.exitCode, 0, 'a clean stop with the scheduler running');
  assert.equal(second.child.exitCode, 0);

  // Both stopped, so every poll has ended: what the store holds now is every job either process ever started.
  const store = await openStoreOf(env);
  try {
    const jobs = store.collection('jobs');
    const all = await jobs.findByIds(await jobs.findIds(null, 1000));
    const fired = all.filter((j) => j['name'] === 'fire-once');
    assert.equal(fired.length, COUNT, `one job per automation, not one per process; warnings: ${warnings}`);
    assert.deepEqual(fired.map((j) => (j['variables'] as { index: number }).index).sort((a, b) => a - b), ids.map((_, i) => i));
  } finally {
    await store.close();
  }
});
