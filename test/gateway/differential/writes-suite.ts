/**
 * Differential test of every legacy write operation: two twin jobs are
 * started from the same workflow with the same variables; the legacy call
 * goes to the gateway for one, the new call it stands for goes to the core
 * for the other, and once the engine is idle the two jobs and their task
 * documents must be equal, ids and times aside.
 * A rewrite that loses or adds an effect shows as a difference.
 *
 * The suite runs in two modes, each its own test file: in front of our core
 * (writes.test.ts), and over HTTPS in front of the platform stand-in
 * (writes-platform.test.ts), where it ends by reading what reached the
 * stand-in (test/helpers/in-front-of-platform.ts). The new calls of the twin
 * go to the core directly in both: they are the oracle.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { createWorkflow, failing, job, manual, runningTask, startJob, workflow } from '../../helpers/engine.ts';
import { startGateway } from '../../helpers/gateway.ts';
import type { RunningGateway } from '../../helpers/gateway.ts';
import { assertPlatformServed, startInFrontOfPlatform, stopEither } from '../../helpers/in-front-of-platform.ts';
import type { InFrontOfPlatform } from '../../helpers/in-front-of-platform.ts';
import type { Mode } from './world.ts';
import { makeGroup } from '../../helpers/users.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

type Doc = Record<string, unknown>;

let store: SqliteStore;
let core: RunningCore;
let gateway: RunningGateway;
let groups: string[];
let adminId: string;
let platform: InFrontOfPlatform | null = null;

async function setUp(mode: Mode): Promise<void> {
  store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  platform = mode === 'platform' ? await startInFrontOfPlatform({ store }) : null;
  core = platform?.core ?? (await startCore(store));
  gateway = platform?.gateway ?? (await startGateway(core.url));
  await createWorkflow(core, workflow('Diff Manual', { b2: manual({ answer: '' }) }, [['workflow_start', 'b2'], ['b2', 'workflow_end']]));
  await createWorkflow(core, workflow('Diff Failing', { f1: failing() }, [['workflow_start', 'f1'], ['f1', 'workflow_end']]));
  groups = [await makeGroup(core, 'diff-one'), await makeGroup(core, 'diff-two')];
  adminId = (await core.core.auth.findAccount(core.config.admin.username))!['_id'] as string;
}

async function tearDown(): Promise<void> {
  await stopEither(platform, gateway, core);
  await store?.close();
}

/** What may differ between twins: their ids, the ids of their task documents, and times. */
const VOLATILE = /^(_id|ancestors|iterations|created|last_updated|timestamp|lastUpdatedVersion|createdVersion)$|_time$/;

function normalized(value: unknown, ids: readonly string[]): unknown {
  if (typeof value === 'string') return ids.includes(value) ? '<twin id>' : value;
  if (Array.isArray(value)) return value.map((v) => normalized(v, ids));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Doc).filter(([k]) => !VOLATILE.test(k)).map(([k, v]) => [k, normalized(v, ids)]));
  }
  return value;
}

const json = { 'content-type': 'application/json' };

/** A legacy call to the gateway, with the administrator's token in the query string (a legacy credential form). */
async function legacy(method: string, path: string, body?: unknown): Promise<JsonResponse> {
  const res = await request(`${gateway.url}${path}${path.includes('?') ? '&' : '?'}token=${core.adminToken}`, { method, headers: json, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

async function modern(method: string, path: string, body?: unknown): Promise<JsonResponse> {
  const res = await core.request(path, { method, headers: json, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  assert.ok(res.status >= 200 && res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
}

interface Twins {
  readonly legacyJob: string;
  readonly modernJob: string;
}

/** Every task document of a job, in a stable order. */
async function tasksOf(jobId: string): Promise<Doc[]> {
  const res = await core.request(`/operations-manager/tasks?equals[job._id]=${jobId}&sort=metrics.start_time&order=1&limit=100`);
  return (res.body as { data: Doc[] }).data;
}

/** Both jobs and all their task documents equal, ids and times aside. */
async function assertTwins(t: Twins): Promise<void> {
  const [a, b] = [await job(core, t.legacyJob), await job(core, t.modernJob)];
  const [ta, tb] = [await tasksOf(t.legacyJob), await tasksOf(t.modernJob)];
  const ids = [t.legacyJob, t.modernJob, ...[...ta, ...tb].map((d) => d['_id'] as string)];
  assert.deepStrictEqual(normalized(a, ids), normalized(b, ids), 'the two jobs differ');
  assert.deepStrictEqual(normalized(ta, ids), normalized(tb, ids), 'the task documents of the two jobs differ');
}

async function twins(workflowName: string): Promise<Twins> {
  const variables = { port: 'Gi0/1' };
  const legacyJob = await startJob(core, workflowName, variables);
  const modernJob = await startJob(core, workflowName, variables);
  await core.core.engine.idle();
  return { legacyJob, modernJob };
}

type Case = (t: Twins) => Promise<void>;

const JOB_CASES: Record<string, [workflow: string, run: Case]> = {
  cancelJob: ['Diff Manual', async (t) => {
    await legacy('POST', '/workflow_engine/cancelJob', { job_id: t.legacyJob });
    await modern('POST', '/operations-manager/jobs/cancel', { jobIds: [t.modernJob] });
  }],
  pauseJob: ['Diff Manual', async (t) => {
    await legacy('POST', '/workflow_engine/pauseJob', { job_id: t.legacyJob });
    await modern('POST', '/operations-manager/jobs/pause', { jobIds: [t.modernJob] });
  }],
  resumeJob: ['Diff Manual', async (t) => {
    await modern('POST', '/operations-manager/jobs/pause', { jobIds: [t.legacyJob, t.modernJob] });
    await legacy('POST', '/workflow_engine/resumeJob', { job_id: t.legacyJob });
    await modern('POST', '/operations-manager/jobs/resume', { jobIds: [t.modernJob] });
  }],
  watchJob: ['Diff Manual', async (t) => {
    await legacy('PUT', `/workflow_engine/job/${t.legacyJob}/watch`);
    await modern('POST', `/operations-manager/jobs/${t.modernJob}/watch`);
  }],
  unwatchJob: ['Diff Manual', async (t) => {
    await modern('POST', `/operations-manager/jobs/${t.legacyJob}/watch`);
    await modern('POST', `/operations-manager/jobs/${t.modernJob}/watch`);
    await legacy('DELETE', `/workflow_engine/job/${t.legacyJob}/watch`);
    await modern('POST', `/operations-manager/jobs/${t.modernJob}/unwatch`);
  }],
  addWatchers: ['Diff Manual', async (t) => {
    await legacy('POST', '/workflow_engine/job/watchers/watch', { job_id: t.legacyJob, watchers: [adminId] });
    await modern('POST', `/operations-manager/jobs/${t.modernJob}/watch`);
  }],
  createJobGroupEntry: ['Diff Manual', async (t) => {
    await legacy('POST', `/workflow_engine/jobs/${t.legacyJob}/groups`, { group: groups[0] });
    await modern('POST', `/operations-manager/jobs/${t.modernJob}/groups`, { groupId: groups[0] });
  }],
  replaceJobGroups: ['Diff Manual', async (t) => {
    await legacy('PUT', `/workflow_engine/jobs/${t.legacyJob}/groups`, { groups });
    await modern('PUT', `/operations-manager/jobs/${t.modernJob}/groups`, { groups });
  }],
  deleteJobGroups: ['Diff Manual', async (t) => {
    for (const id of [t.legacyJob, t.modernJob]) await modern('PUT', `/operations-manager/jobs/${id}/groups`, { groups });
    await legacy('DELETE', `/workflow_engine/jobs/${t.legacyJob}/groups`);
    await modern('PUT', `/operations-manager/jobs/${t.modernJob}/groups`, { groups: [] });
  }],
  removeJobGroup: ['Diff Manual', async (t) => {
    for (const id of [t.legacyJob, t.modernJob]) await modern('PUT', `/operations-manager/jobs/${id}/groups`, { groups });
    await legacy('DELETE', `/workflow_engine/jobs/${t.legacyJob}/groups/${groups[1]}`);
    await modern('DELETE', `/operations-manager/jobs/${t.modernJob}/groups/${groups[1]}`);
  }],
  claimTask: ['Diff Manual', async (t) => {
    const [a, b] = [await runningTask(core, t.legacyJob, 'b2'), await runningTask(core, t.modernJob, 'b2')];
    await legacy('POST', '/workflow_engine/tasks/claim', { task_id: a });
    await modern('POST', `/operations-manager/tasks/${b}/claim`);
  }],
  'claimTask with a user': ['Diff Manual', async (t) => {
    const [a, b] = [await runningTask(core, t.legacyJob, 'b2'), await runningTask(core, t.modernJob, 'b2')];
    await legacy('POST', '/workflow_engine/tasks/claim', { task_id: a, user: adminId });
    await modern('POST', `/operations-manager/tasks/${b}/assign`, { userId: adminId });
  }],
  releaseTask: ['Diff Manual', async (t) => {
    const [a, b] = [await runningTask(core, t.legacyJob, 'b2'), await runningTask(core, t.modernJob, 'b2')];
    for (const id of [a, b]) await modern('POST', `/operations-manager/tasks/${id}/claim`);
    await legacy('POST', '/workflow_engine/tasks/release', { task_id: a });
    await modern('POST', `/operations-manager/tasks/${b}/release`);
  }],
  finishManualTask: ['Diff Manual', async (t) => {
    for (const id of [t.legacyJob, t.modernJob]) await modern('POST', `/operations-manager/tasks/${await runningTask(core, id, 'b2')}/claim`);
    await legacy('POST', '/workflow_engine/finishManualTask', { job_id: t.legacyJob, task_id: 'b2', task_data: { finish_state: 'success', variables: { outgoing: { answer: 'yes' } } } });
    await modern('POST', `/operations-manager/jobs/${t.modernJob}/tasks/b2/finish`, { taskData: { finish_state: 'success', variables: { answer: 'yes' } } });
  }],
  finishTask: ['Diff Manual', async (t) => {
    for (const id of [t.legacyJob, t.modernJob]) await modern('POST', `/operations-manager/tasks/${await runningTask(core, id, 'b2')}/claim`);
    await legacy('POST', '/workflow_engine/finishTask', { job_id: t.legacyJob, task_id: 'b2', task_data: { finish_state: 'success', variables: { outgoing: { answer: 'no' } } } });
    await modern('POST', `/operations-manager/jobs/${t.modernJob}/tasks/b2/finish`, { taskData: { finish_state: 'success', variables: { answer: 'no' } } });
  }],
  retryTask: ['Diff Failing', async (t) => {
    await legacy('POST', `/workflow_engine/jobs/${t.legacyJob}/retryTask`, { taskId: 'f1', variables: {} });
    await modern('POST', `/operations-manager/jobs/${t.modernJob}/tasks/f1/retry`, { variables: {} });
  }],
  continueJob: ['Diff Failing', async (t) => {
    await legacy('POST', `/workflow_engine/jobs/${t.legacyJob}/continueJob`, { taskId: 'f1' });
    await modern('POST', `/operations-manager/jobs/${t.modernJob}/continue`, { taskId: 'f1' });
  }],
};

export function writesSuite(mode: Mode): void {
  before(() => setUp(mode));
  after(tearDown);

  for (const [name, [workflowName, run]] of Object.entries(JOB_CASES)) {
    test(`${name}: the legacy call leaves its job as the new call leaves the twin`, async () => {
      const t = await twins(workflowName);
      await run(t);
      await assertTwins(t);
    });
  }

  test('startJobWithOptions: the legacy start makes the job the new start makes', async () => {
    const options = { description: 'twin start', variables: { port: 'Gi0/9' } };
    const a = (await legacy('POST', '/workflow_engine/startJobWithOptions/Diff%20Manual', { options })).body as Doc;
    const b = ((await modern('POST', '/operations-manager/jobs/start', { workflow: 'Diff Manual', options })).body as { data: Doc }).data;
    await assertTwins({ legacyJob: a['_id'] as string, modernJob: b['_id'] as string });
  });

  if (mode === 'platform') {
    test('what reached the platform stand-in is what a real platform serves: its routes and bodies, the query token, over TLS', (t) => {
      const made = platform!.sim.requests;
      assertPlatformServed(t, made);
      assert.deepEqual([...new Set(made.map((r) => r.credentials))], ['query'], 'the callers\' query token went on as one');
    });
  }
}
