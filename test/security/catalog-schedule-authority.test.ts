/**
 * The automation catalog's schedules and runs act with the authority of
 * whoever caused them, as the operations manager's triggers do
 * (background-authority.test.ts): a scheduled run acts for the last editor of
 * the automation or of its workflow, and starts nothing once that principal
 * may no longer run the automation by hand; a run by a service account acts
 * for the service account. Over HTTP against a real core in front of the
 * orchestrator stand-in; the catalog's scheduler is driven by `tick()`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../../kernel/store/ids.ts';
import { role } from '../helpers/users.ts';
import { account, CE1, chain, deleteCe1, errorText, NSO, saveWorkflow, send, startRelayFixture, storedJob, stripRoles, YANG_JSON } from './authority-fixture.ts';
import type { Account, Json, RelayFixture } from './authority-fixture.ts';

const BASE = '/automation_catalog/automations';
let f: RelayFixture;
let editor: Account;

const harmless = (name: string): Json => chain(name, { c1: { name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { name: 'done', value: true }, outgoing: { value: null } } } });

async function ce1Exists(): Promise<boolean> {
  const res = await send(f.core, 'POST', `/orchestrator_manager/restQuery/${encodeURIComponent(NSO)}`, { params: { path: CE1, accept: YANG_JSON } });
  return res.status === 200;
}

/** A catalog automation of `workflow`, made by `token`'s holder (the administrator when none), due a second ago. */
async function dueAutomation(name: string, workflow: string, token?: string): Promise<string> {
  const made = await send(f.core, 'POST', BASE, { name, description: `${name} (test)` }, token);
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const id = String((made.body as Json)['_id']);
  const put = await send(f.core, 'PUT', `${BASE}/${id}`, { options: { workflow, nextRunAt: new Date(Date.now() - 1000).toISOString() } }, token);
  assert.equal(put.status, 200, JSON.stringify(put.body));
  return id;
}

async function jobsNamed(name: string): Promise<Json[]> {
  await f.core.core.engine.idle();
  const res = await send(f.core, 'GET', `/operations-manager/jobs?equals[name]=${encodeURIComponent(name)}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: Json[] }).data;
}

before(async () => {
  f = await startRelayFixture();
  // Holds every catalog write role and the designer's, but no relay role.
  editor = await account(f.core, 'catalog-editor', [['AutomationCatalog', 'engineering'], ['AutomationStudio', 'designer']]);
});
after(async () => {
  await f.core.core.automationScheduler.stop();
  await f.close();
});

test("editing the workflow an administrator's catalog schedule runs makes the editor its principal", async () => {
  await saveWorkflow(f.core, harmless('catalog nightly'));
  const id = await dueAutomation('catalog nightly automation', 'catalog nightly');
  const saved = await send(f.core, 'GET', `/automation-studio/automations/${encodeURIComponent('catalog nightly')}`);
  const edited = chain('catalog nightly', { c1: deleteCe1() });
  const put = await send(f.core, 'PUT', `/automation-studio/automations/${String((saved.body as Json)['_id'])}`, { update: { tasks: edited['tasks'], transitions: edited['transitions'] } }, editor.token);
  assert.equal(put.status, 200, JSON.stringify(put.body));

  const from = f.sim.requests.length;
  assert.equal(await f.core.core.automationScheduler.tick(), 1);
  const [job] = await jobsNamed('catalog nightly');
  assert.ok(job, `the schedule of ${id} started its workflow`);
  assert.equal(job['created_by'], editor.id, 'the edited workflow runs as its editor');
  assert.match(errorText(await storedJob(f.core, String(job['_id']))), /catalog-editor, who holds no role that allows OrchestratorManager\.restAction/);
  assert.deepEqual(f.sim.requests.slice(from).map((r) => `${r.method} ${r.path}`), [], 'the orchestrator was never called');
  assert.ok(await ce1Exists());
});

test('a catalog schedule whose principal may no longer run automations starts nothing and records why', async () => {
  await saveWorkflow(f.core, harmless('catalog owned'));
  const owner = await account(f.core, 'catalog-owner', [['AutomationCatalog', 'operations'], ['AutomationStudio', 'designer']]);
  const id = await dueAutomation('catalog owned automation', 'catalog owned', owner.token);
  await stripRoles(f.core, owner.id, { assignedRoles: [] });

  assert.equal(await f.core.core.automationScheduler.tick(), 1);
  assert.deepEqual(await jobsNamed('catalog owned'), [], 'no job was started');
  const doc = (await f.core.store.collection('automations').findById(id))!;
  assert.match(String(doc['failReason']), /catalog-owner, who holds no role that allows AutomationCatalog\.runAutomation/);
});

test('a service account that runs a catalog automation is the principal of its job', async () => {
  await saveWorkflow(f.core, harmless('catalog robot'));
  const id = await dueAutomation('catalog robot automation', 'catalog robot');
  const clientId = newObjectId();
  await f.core.store.collection('service_accounts').insertOne({ _id: clientId, name: 'catalog robot', description: 'test', assignedRoles: [{ roleId: role('AutomationCatalog', 'operations') }], inactive: false });
  const { token } = await f.core.core.auth.sessions.start(clientId, 'service', 'oauth');
  const res = await send(f.core, 'POST', `${BASE}/${id}/run`, {}, token);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const job = await storedJob(f.core, String((res.body as Json)['_id']));
  assert.deepEqual(job['_principal'], { kind: 'service', id: clientId });
});
