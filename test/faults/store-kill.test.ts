/**
 * The core, and with it the embedded store, is killed (SIGKILL) at a moment
 * the test does not choose, in the middle of a stream of acknowledged writes:
 * concurrent clients start jobs and pause, resume, cancel them and finish
 * their manual tasks. After a restart on the same DATA_DIR the file passes
 * `PRAGMA integrity_check`, every acknowledged job exists and is where its
 * last acknowledged action left it (or one step further, when the action
 * under way at the kill was applied without its answer getting out).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { crash, spawnCore } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { manual, workflow } from '../helpers/engine.ts';
import { ADMIN_PASSWORD, clients, figure, login, tempDir, timed, waitUntil } from './support.ts';
import { timingSleep } from '../helpers/wait.ts';

const data = tempDir('store-kill');
const procs: CoreProcess[] = [];
after(async () => {
  for (const p of procs) await crash(p);
  data.remove();
});

const MANUAL = 'a1b2';
const WORKFLOW = workflow('fault-wait', { [MANUAL]: manual() }, [['workflow_start', MANUAL], [MANUAL, 'workflow_end']], { description: 'waits for a person' });

type Action = 'pause' | 'resume' | 'cancel' | 'finish';
/** What each action leaves the job as. */
const AFTER: Record<Action, string> = { pause: 'paused', resume: 'running', cancel: 'canceled', finish: 'complete' };
/** Scripts a client plays on each job it starts; every step is allowed where the one before leaves the job. */
const SCRIPTS: Action[][] = [['finish'], ['cancel'], ['pause'], ['pause', 'resume', 'finish'], ['pause', 'cancel'], ['pause', 'resume', 'pause']];

interface Tracked {
  id: string;
  /** The status the last acknowledged action left it in. */
  acknowledged: string;
  /** The status the action sent but not answered would leave it in. */
  underWay: string | null;
  actions: number;
}

test('a core killed mid-stream of writes keeps every acknowledged job and control action, and an intact store', { timeout: 40_000 }, async () => {
  // The embedded store on purpose: what is killed and checked is its file (PRAGMA integrity_check).
  const env = { DATA_DIR: data.path, ADMIN_PASSWORD };
  let core = await spawnCore(env);
  procs.push(core);
  const token = await login(core.url);
  const post = (url: string, path: string, body: unknown) =>
    timed(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), timeoutMs: 5000 });
  const saved = await post(core.url, '/automation-studio/automations', { automation: WORKFLOW });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));

  const jobs: Tracked[] = [];
  /** True for an acknowledged write, false for one the kill cut off; any other answer fails the test. */
  const acknowledged = (what: string, res: Awaited<ReturnType<typeof post>>): boolean => {
    if (res.status === 0) return false;
    assert.equal(res.status, 200, `${what} answered ${res.status} ${JSON.stringify(res.body)}`);
    return true;
  };
  const traffic = clients(6, async (client, round) => {
    const started = await post(core.url, '/operations-manager/jobs/start', { workflow: WORKFLOW.name, options: { description: `client ${client} round ${round}` } });
    if (!acknowledged('start', started)) return timingSleep(20, 'a client whose call was not acknowledged tries again shortly, as a script would');
    const job: Tracked = { id: (started.body as { data: { _id: string } }).data._id, acknowledged: 'running', underWay: null, actions: 0 };
    jobs.push(job);
    for (const action of SCRIPTS[(client + round) % SCRIPTS.length]!) {
      job.underWay = AFTER[action];
      const res = action === 'finish'
        ? await post(core.url, `/operations-manager/jobs/${job.id}/tasks/${MANUAL}/finish`, { finish_state: 'success', variables: {} })
        : await post(core.url, `/operations-manager/jobs/${action}`, { jobIds: [job.id] });
      if (!acknowledged(action, res)) return timingSleep(20, 'a client whose call was not acknowledged tries again shortly, as a script would');
      job.acknowledged = AFTER[action];
      job.underWay = null;
      job.actions += 1;
    }
  });
  // Kill at a moment the test does not choose, once a fair stream of writes is acknowledged.
  const streamStart = performance.now();
  await waitUntil(() => jobs.length >= 30 && jobs.reduce((n, j) => n + j.actions, 0) >= 30, 15_000, '30 acknowledged job starts and actions');
  await timingSleep(Math.floor(Math.random() * 500), 'the kill comes at a moment the test does not choose');
  const killAfterMs = Math.round(performance.now() - streamStart);
  await crash(core);
  await traffic.stop();

  const db = new Database(join(data.path, 'iap.sqlite'));
  try {
    assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  } finally {
    db.close();
  }

  core = await spawnCore(env);
  procs.push(core);
  const wrong: string[] = [];
  const ids = jobs.map((j) => j.id);
  for (let i = 0; i < ids.length; i += 100) {
    const page = await timed(`${core.url}/operations-manager/jobs?in[_id]=${ids.slice(i, i + 100).join(',')}&limit=100&include=_id,status`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(page.status, 200, `the token of before the kill still works: ${JSON.stringify(page.body)}`);
    const status = new Map((page.body as { data: Array<{ _id: string; status: string }> }).data.map((d) => [d._id, d.status]));
    for (const job of jobs.slice(i, i + 100)) {
      const now = status.get(job.id);
      if (now !== job.acknowledged && now !== job.underWay) wrong.push(`${job.id}: ${now ?? 'missing'}, acknowledged ${job.acknowledged}${job.underWay ? ` (${job.underWay} under way)` : ''}`);
    }
  }
  assert.deepEqual(wrong, [], 'every acknowledged job and action is there');
  const actions = jobs.reduce((n, j) => n + j.actions, 0);
  const finished = jobs.filter((j) => j.acknowledged === 'complete').length;
  figure('store kill', `killed ${killAfterMs} ms into the stream: ${jobs.length} acknowledged job starts and ${actions} acknowledged actions (${finished} manual tasks finished) all there after restart; ${jobs.filter((j) => j.underWay).length} actions were under way; integrity_check ok`);
});
