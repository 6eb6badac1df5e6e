/**
 * A scheduled automation fires once across two core processes on the same
 * store: two real cores on one DATA_DIR, both polling every 50 ms, and
 * twenty automations that fall due at the same instant while both are
 * polling. Both processes read the same due batch and work through it, so
 * each claim races the other process; every automation must start exactly
 * one job, whichever process claims it.
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
import { storeEnv } from '../../helpers/stores.ts';

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

  const until = Date.now() + 20_000;
  let ran: Array<{ lastRunAt: string | null; nextRunAt: string | null }> = [];
  while (Date.now() < until) {
    const list = await call(first, 'GET', '/automation_catalog/automations?startsWith=fire-once-&startsWithField=name');
    ran = (list.body as { results: Array<{ lastRunAt: string | null; nextRunAt: string | null }> }).results;
    if (ran.length === COUNT && ran.every((a) => a.lastRunAt !== null)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(ran.length, COUNT);
  assert.ok(ran.every((a) => a.lastRunAt !== null && a.nextRunAt === null), JSON.stringify(ran));
  // Many more polls of both processes, for any second start to show up.
  await new Promise((r) => setTimeout(r, 1000));

  for (const p of [first, second]) {
    const jobs = await call(p, 'GET', '/operations-manager/jobs?equals[name]=fire-once&include=variables&limit=100');
    assert.equal(jobs.status, 200, JSON.stringify(jobs.body));
    const body = jobs.body as { data: Array<{ variables: { index: number } }>; metadata: { total: number } };
    assert.equal(body.metadata.total, COUNT, `one job per automation, not one per process; automations: ${JSON.stringify(ran)}; warnings: ${[...first.problems, ...second.problems].join('\n')}`);
    assert.deepEqual(body.data.map((j) => j.variables.index).sort((a, b) => a - b), ids.map((_, i) => i));
  }
  await stop(first);
  await stop(second);
  assert.equal(first.child.exitCode, 0, 'a clean stop with the scheduler running');
  assert.equal(second.child.exitCode, 0);
});
