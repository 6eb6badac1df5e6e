/**
 * Work runs with the authority of whoever caused it (issue 26, findings 2 and
 * 5), proved as an attacker would try it: over HTTP against a real core in
 * front of the orchestrator stand-in. A job acts for its principal, and a task
 * that reaches outside the store checks, when it runs, that the principal may
 * do the same over HTTP; the orchestrator is never called otherwise. A
 * schedule acts for whoever last changed what it runs.
 *
 * The scheduler is a second one on the same store with an injected clock,
 * driven by `tick()`; the engine is waited for with `idle()`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../kernel/logger.ts';
import { createOmAutomations } from '../../core/src/operations-manager/automations/index.ts';
import type { Scheduler } from '../../core/src/scheduler/scheduler.ts';
import { newObjectId } from '../../kernel/store/ids.ts';
import { role } from '../helpers/users.ts';
import { account, CE1, chain, deleteCe1, errorText, manualTask, NSO, readCe0, saveWorkflow, send, startedId, startRelayFixture, storedJob, stripRoles, YANG_JSON } from './authority-fixture.ts';
import type { Account, Json, RelayFixture } from './authority-fixture.ts';

const HOUR = 3_600_000;
let f: RelayFixture;
let designer: Account;
let cataloguer: Account;

/** Requests the orchestrator stand-in received since `from`, other than the tests' own reads. */
const simCallsSince = (from: number): string[] => f.sim.requests.slice(from).map((r) => `${r.method} ${r.path}`);

async function ce1Exists(): Promise<boolean> {
  const res = await send(f.core, 'POST', `/orchestrator_manager/restQuery/${encodeURIComponent(NSO)}`, { params: { path: CE1, accept: YANG_JSON } });
  return res.status === 200;
}

before(async () => {
  f = await startRelayFixture();
  // Finding 2's accounts: a designer who operates jobs, and one who only runs the service catalog.
  designer = await account(f.core, 'designer-operator', [['AutomationStudio', 'designer'], ['OperationsManager', 'operations']]);
  cataloguer = await account(f.core, 'catalog-only', [['ServiceCatalog', 'engineering'], ['ServiceCatalog', 'operations']]);
});
after(() => f.close());

test('finding 2: a designer refused the relay over HTTP cannot read or delete devices through a workflow they start', async () => {
  const direct = await send(f.core, 'POST', `/orchestrator_manager/restQuery/${encodeURIComponent(NSO)}`, { params: { path: '/restconf/data/tailf-ncs:devices/device=ce0/config', accept: YANG_JSON } }, designer.token);
  assert.equal(direct.status, 403);
  await saveWorkflow(f.core, chain('exfiltrate and delete', { a1: readCe0(), b2: deleteCe1('OrchestratorManager') }), designer.token);
  const from = f.sim.requests.length;
  const id = startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'exfiltrate and delete' }, designer.token));
  const job = await storedJob(f.core, id);
  assert.equal(job.status, 'error');
  assert.match(errorText(job), /designer-operator, who holds no role that allows OrchestratorManager\.restQuery; it needs one of the roles OrchestratorManager\.admin/);
  assert.equal((job['variables'] as Json)['result'], undefined, 'no configuration was read into the job');
  assert.deepEqual(simCallsSince(from), [], 'the orchestrator was never called');
  assert.ok(await ce1Exists());
  assert.deepEqual(job['_principal'], { kind: 'account', id: designer.id });
});

test('finding 2: an account with only service-catalog roles cannot reach the orchestrator by ordering a service', async () => {
  await saveWorkflow(f.core, chain('delete ce1 by order', { c3: deleteCe1() }));
  const added = await send(f.core, 'POST', '/service_catalog/AddNewService', { service: { name: 'innocent service', workflow: 'delete ce1 by order' }, form: { name: 'innocent form', schema: { type: 'object' } } }, cataloguer.token);
  assert.equal(added.status, 200, JSON.stringify(added.body));
  const from = f.sim.requests.length;
  const order = await send(f.core, 'POST', '/service_catalog/invokeServiceOrder', { name: 'innocent service', formData: {} }, cataloguer.token);
  const job = await storedJob(f.core, startedId(order));
  assert.equal(job.status, 'error');
  assert.match(errorText(job), /catalog-only, who holds no role that allows OrchestratorManager\.restAction/);
  assert.deepEqual(simCallsSince(from), []);
  assert.ok(await ce1Exists());
  assert.deepEqual(job['_principal'], { kind: 'account', id: cataloguer.id });
  // Not leaked: the job as the interface shows it has no principal field (created_by already says who).
  const shown = (order.body as Json);
  assert.equal(shown['_principal'], undefined);
  assert.equal(shown['created_by'], cataloguer.id);
});

test('a holder of the relay role gets through a workflow what they get over HTTP, and loses it when the role is taken away mid-job', async () => {
  const relayer = await account(f.core, 'relay-operator', [['OrchestratorManager', 'admin'], ['OperationsManager', 'operations']]);
  await saveWorkflow(f.core, chain('read ce0 after approval', { d4: manualTask(), e5: readCe0() }));
  const ok = await storedJob(f.core, startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'read ce0 after approval' }, relayer.token)));
  assert.equal(ok.status, 'running', 'waiting at the manual task');
  const finish = (jobId: string) => send(f.core, 'POST', `/operations-manager/jobs/${jobId}/tasks/d4/finish`, { finish_state: 'success', variables: {} });
  assert.equal((await finish(String(ok['_id']))).status, 200);
  assert.equal((await storedJob(f.core, String(ok['_id']))).status, 'complete');

  const second = await storedJob(f.core, startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'read ce0 after approval' }, relayer.token)));
  await stripRoles(f.core, relayer.id, { assignedRoles: [] });
  const from = f.sim.requests.length;
  assert.equal((await finish(String(second['_id']))).status, 200);
  const refused = await storedJob(f.core, String(second['_id']));
  assert.equal(refused.status, 'error');
  assert.match(errorText(refused), /relay-operator, who holds no role that allows OrchestratorManager\.restQuery/);
  assert.deepEqual(simCallsSince(from), []);
});

test('a job whose principal was deactivated meanwhile reaches nothing', async () => {
  const relayer = await account(f.core, 'leaver', [['OrchestratorManager', 'admin'], ['OperationsManager', 'operations']]);
  const started = await storedJob(f.core, startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'read ce0 after approval' }, relayer.token)));
  await stripRoles(f.core, relayer.id, { inactive: true });
  const from = f.sim.requests.length;
  assert.equal((await send(f.core, 'POST', `/operations-manager/jobs/${String(started['_id'])}/tasks/d4/finish`, { finish_state: 'success', variables: {} })).status, 200);
  const refused = await storedJob(f.core, String(started['_id']));
  assert.equal(refused.status, 'error');
  assert.match(errorText(refused), new RegExp(`account ${relayer.id}, which no longer exists or is inactive`));
  assert.deepEqual(simCallsSince(from), []);
});

/** A scheduler of schedule triggers on the core's store whose clock the test sets. */
function scheduler(clock: { now: number }): Scheduler {
  const logger = createLogger({ level: 'error', service: 'test-scheduler', silent: true });
  return createOmAutomations({ store: f.core.store, engine: f.core.core.engine, authority: f.core.core.authority, logger, pollMs: 60_000, limits: f.core.config.search, now: () => clock.now }).scheduler;
}

async function scheduledJobs(workflowName: string): Promise<Json[]> {
  await f.core.core.engine.idle();
  const res = await send(f.core, 'GET', `/operations-manager/jobs?equals[name]=${encodeURIComponent(workflowName)}`);
  return (res.body as { data: Json[] }).data;
}

test("finding 5: editing someone else's automation makes its schedule act for the editor, not the owner", async () => {
  await saveWorkflow(f.core, chain('harmless report', { f6: { name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { name: 'done', value: true }, outgoing: { value: null } } } }));
  await saveWorkflow(f.core, chain('scheduled delete', { a7: deleteCe1() }));
  const automation = await send(f.core, 'POST', '/operations-manager/automations', { name: 'nightly report', componentName: 'harmless report' });
  assert.equal(automation.status, 200, JSON.stringify(automation.body));
  const automationId = String(((automation.body as Json)['data'] as Json)['_id']);
  const firstRunAt = Date.now() + HOUR;
  const trigger = await send(f.core, 'POST', '/operations-manager/triggers', { type: 'schedule', name: 'nightly', actionId: automationId, firstRunAt, repeatInterval: HOUR });
  assert.equal(trigger.status, 200, JSON.stringify(trigger.body));
  // The attacker holds an operations-manager write role, and no relay role.
  const patched = await send(f.core, 'PATCH', `/operations-manager/automations/${automationId}`, { componentName: 'scheduled delete' }, designer.token);
  assert.equal(patched.status, 200, JSON.stringify(patched.body));

  const clock = { now: firstRunAt + 1000 };
  const from = f.sim.requests.length;
  assert.equal(await scheduler(clock).tick(), 1);
  const [job] = await scheduledJobs('scheduled delete');
  assert.ok(job, 'the schedule started the edited workflow');
  assert.equal(job['created_by'], designer.id, 'created by the editor');
  assert.equal((job['metrics'] as Json)['user'], designer.id);
  assert.equal((job['variables'] as Json)['initiator'], 'designer-operator');
  const stored = await storedJob(f.core, String(job['_id']));
  assert.equal(stored.status, 'error');
  assert.match(errorText(stored), /designer-operator, who holds no role that allows OrchestratorManager\.restAction/);
  assert.deepEqual(simCallsSince(from), [], 'ce1 was not deleted with the administrator\'s credentials');
  assert.ok(await ce1Exists());
  // Out of the next test's way: its clock reaches this schedule's later windows.
  assert.equal((await send(f.core, 'DELETE', `/operations-manager/triggers/${String(((trigger.body as Json)['data'] as Json)['_id'])}`)).status, 200);
});

test("a schedule left alone acts for its owner; one whose principal lost the right to run triggers starts nothing and says why", async () => {
  await saveWorkflow(f.core, chain('owned report', { b8: readCe0() }));
  const owner = await account(f.core, 'schedule-owner', [['OrchestratorManager', 'admin'], ['OperationsManager', 'operations']]);
  const automation = await send(f.core, 'POST', '/operations-manager/automations', { name: 'owned automation', componentName: 'owned report' }, owner.token);
  const automationId = String(((automation.body as Json)['data'] as Json)['_id']);
  const firstRunAt = Date.now() + 2 * HOUR;
  const created = await send(f.core, 'POST', '/operations-manager/triggers', { type: 'schedule', name: 'owned', actionId: automationId, firstRunAt, repeatInterval: HOUR }, owner.token);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const triggerId = String(((created.body as Json)['data'] as Json)['_id']);

  const clock = { now: firstRunAt + 1000 };
  assert.equal(await scheduler(clock).tick(), 1);
  const [job] = await scheduledJobs('owned report');
  assert.equal(job?.['created_by'], owner.id);
  assert.equal((await storedJob(f.core, String(job!['_id']))).status, 'complete');

  await stripRoles(f.core, owner.id, { assignedRoles: [] });
  clock.now += HOUR;
  await scheduler(clock).tick();
  assert.equal((await scheduledJobs('owned report')).length, 1, 'no second job');
  const after = (await f.core.store.collection('triggers').findById(triggerId))!;
  assert.match(String(after['failReason']), /schedule-owner, who holds no role that allows OperationsManager\.runManualTrigger/);
  assert.equal((await send(f.core, 'DELETE', `/operations-manager/triggers/${triggerId}`)).status, 200);
});

/** An administrator's automation of `workflowName` with a schedule due at `firstRunAt`; answers their ids. */
async function adminSchedule(name: string, workflowName: string, firstRunAt: number): Promise<{ automation: string; trigger: string }> {
  const automation = await send(f.core, 'POST', '/operations-manager/automations', { name, componentName: workflowName });
  assert.equal(automation.status, 200, JSON.stringify(automation.body));
  const automationId = String(((automation.body as Json)['data'] as Json)['_id']);
  const trigger = await send(f.core, 'POST', '/operations-manager/triggers', { type: 'schedule', name: `${name} schedule`, actionId: automationId, firstRunAt, repeatInterval: null });
  assert.equal(trigger.status, 200, JSON.stringify(trigger.body));
  return { automation: automationId, trigger: String(((trigger.body as Json)['data'] as Json)['_id']) };
}

test("re-pointing an administrator's schedule at another automation makes the editor its principal", async () => {
  await saveWorkflow(f.core, chain('quiet report', { c9: { name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { name: 'done', value: true }, outgoing: { value: null } } } }));
  await saveWorkflow(f.core, chain('delete by re-pointing', { d1: deleteCe1() }));
  const firstRunAt = Date.now() + 5 * HOUR;
  const own = await adminSchedule('quiet automation', 'quiet report', firstRunAt);
  const other = await send(f.core, 'POST', '/operations-manager/automations', { name: 'dangerous automation', componentName: 'delete by re-pointing' });
  const otherId = String(((other.body as Json)['data'] as Json)['_id']);
  assert.equal((await send(f.core, 'PATCH', `/operations-manager/triggers/${own.trigger}`, { actionId: otherId }, designer.token)).status, 200);

  const from = f.sim.requests.length;
  assert.equal(await scheduler({ now: firstRunAt + 1000 }).tick(), 1);
  const [job] = await scheduledJobs('delete by re-pointing');
  assert.equal(job?.['created_by'], designer.id);
  assert.match(errorText(await storedJob(f.core, String(job!['_id']))), /designer-operator, who holds no role that allows OrchestratorManager\.restAction/);
  assert.deepEqual(simCallsSince(from), []);
});

test('editing the workflow an administrator schedules makes the editor its principal', async () => {
  await saveWorkflow(f.core, chain('weekly check', { e2: { name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { name: 'done', value: true }, outgoing: { value: null } } } }));
  const firstRunAt = Date.now() + 7 * HOUR;
  await adminSchedule('weekly automation', 'weekly check', firstRunAt);
  const saved = await send(f.core, 'GET', `/automation-studio/automations/${encodeURIComponent('weekly check')}`);
  const workflowId = String((saved.body as Json)['_id']);
  const edited = chain('weekly check', { e2: deleteCe1() });
  const put = await send(f.core, 'PUT', `/automation-studio/automations/${workflowId}`, { update: { tasks: edited['tasks'], transitions: edited['transitions'] } }, designer.token);
  assert.equal(put.status, 200, JSON.stringify(put.body));

  const from = f.sim.requests.length;
  assert.equal(await scheduler({ now: firstRunAt + 1000 }).tick(), 1);
  const [job] = await scheduledJobs('weekly check');
  assert.equal(job?.['created_by'], designer.id);
  assert.match(errorText(await storedJob(f.core, String(job!['_id']))), /designer-operator, who holds no role that allows OrchestratorManager\.restAction/);
  assert.deepEqual(simCallsSince(from), []);
  assert.ok(await ce1Exists());
});

test("retrying someone else's errored relay task with new incoming values makes the retrier its principal", async () => {
  // The administrator's job reads a device that does not exist, so its relay task ends in error.
  await saveWorkflow(f.core, chain('read a missing device', { f3: { ...readCe0(), variables: { incoming: { adapterId: NSO, params: { path: '/restconf/data/tailf-ncs:devices/device=nope', accept: YANG_JSON } }, outgoing: { result: '$var.job.result' } } } }));
  const id = startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'read a missing device' }));
  assert.equal((await storedJob(f.core, id)).status, 'error');
  const from = f.sim.requests.length;
  const retried = await send(f.core, 'POST', `/operations-manager/jobs/${id}/tasks/f3/retry`, { variables: { params: { path: CE1, accept: YANG_JSON } } }, designer.token);
  assert.equal(retried.status, 200, JSON.stringify(retried.body));
  const job = await storedJob(f.core, id);
  assert.deepEqual(job['_principal'], { kind: 'account', id: designer.id });
  assert.match(errorText(job), /designer-operator, who holds no role that allows OrchestratorManager\.restQuery/);
  assert.deepEqual(simCallsSince(from), [], 'the retried call did not go out with the administrator\'s authority');
});

test('a service account is a principal too: its job acts for it, and a relay task needs its roles', async () => {
  const clientId = newObjectId();
  const roles = [role('OperationsManager', 'apiwrite')];
  await f.core.store.collection('service_accounts').insertOne({ _id: clientId, name: 'nightly robot', description: 'test', assignedRoles: roles.map((roleId) => ({ roleId })), inactive: false });
  const { token } = await f.core.core.auth.sessions.start(clientId, 'service', 'oauth');
  const from = f.sim.requests.length;
  const refused = await storedJob(f.core, startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'read ce0 after approval' }, token)));
  assert.deepEqual(refused['_principal'], { kind: 'service', id: clientId });
  assert.equal((await send(f.core, 'POST', `/operations-manager/jobs/${String(refused['_id'])}/tasks/d4/finish`, { finish_state: 'success', variables: {} })).status, 200);
  assert.match(errorText(await storedJob(f.core, String(refused['_id']))), /nightly robot, who holds no role that allows OrchestratorManager\.restQuery/);
  assert.deepEqual(simCallsSince(from), []);

  const doc = (await f.core.store.collection('service_accounts').findById(clientId))!;
  await f.core.store.collection('service_accounts').replaceOne({ ...doc, assignedRoles: [...roles, role('OrchestratorManager', 'admin')].map((roleId) => ({ roleId })) });
  f.core.core.auth.invalidate();
  const allowed = await storedJob(f.core, startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'read ce0 after approval' }, token)));
  assert.equal((await send(f.core, 'POST', `/operations-manager/jobs/${String(allowed['_id'])}/tasks/d4/finish`, { finish_state: 'success', variables: {} })).status, 200);
  assert.equal((await storedJob(f.core, String(allowed['_id']))).status, 'complete');
});
