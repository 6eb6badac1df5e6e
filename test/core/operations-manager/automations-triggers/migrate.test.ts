/**
 * Migrating automation-catalog automations (collection `automations`, in
 * the catalog's Agenda shape) to operations-manager automations over HTTP:
 * the automation, a manual trigger, a DISABLED schedule trigger when the
 * catalog automation was scheduled; the catalog automation marked; a second
 * migration refused with 409.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../../../../kernel/store/ids.ts';
import { openTestStore } from '../../../helpers/stores.ts';
import { startCore } from '../../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../../helpers/core.ts';
import { newVariable, waitFor, workflow } from '../../../helpers/engine.ts';

type Json = Record<string, unknown>;
const HOUR = 3_600_000;

let core: RunningCore;
let wfId = '';

const send = (method: string, path: string, body?: unknown): Promise<JsonResponse> =>
  core.request(`/operations-manager${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
const data = (res: JsonResponse): Json => (res.body as { data: Json }).data;

/** A catalog automation as the catalog stores it. */
async function catalogAutomation(name: string, data: Json, schedule: { nextRunAt: string | null; repeatInterval: string | null } = { nextRunAt: null, repeatInterval: null }): Promise<string> {
  const _id = newObjectId();
  await core.store.collection('automations').insertOne({
    _id, name, type: 'normal',
    data: { description: `${name} (catalog)`, gbac: { read: [], write: [] }, lastUpdated: new Date().toISOString(), ...data },
    ...schedule, repeatTimezone: null, lastRunAt: null, lastFinishedAt: null, lockedAt: null, disabled: false,
    lastModifiedBy: 'admin', migratedToOM: false, correspondingOMAutomationId: null, _rev: 0,
  });
  return _id;
}

before(async () => {
  core = await startCore((await openTestStore()));
  const wf = workflow('Catalog WF', { a1b2: newVariable('migrated', true) }, [['workflow_start', 'a1b2'], ['a1b2', 'workflow_end']]);
  const res = await core.request('/automation-studio/automations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ automation: wf }) });
  wfId = (res.body as { created: Json }).created['_id'] as string;
});
after(() => core.close());

test('a scheduled catalog automation becomes an automation, a manual trigger and a disabled schedule trigger', async () => {
  const nextRunAt = new Date(Date.now() + 2 * HOUR).toISOString();
  const catalogId = await catalogAutomation('Nightly Backup', { workflowId: wfId, formId: '5f1e0c0c0c0c0c0c0c0c0c0c' }, { nextRunAt, repeatInterval: '1 hour' });
  const res = await send('POST', `/automations/migrate/${catalogId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as { message: string; data: { automation: Json; triggers: Json[] }; metadata: Json };
  assert.equal(body.message, 'Successfully migrated automation');
  assert.deepEqual(body.metadata, {});
  const { automation, triggers } = body.data;
  assert.deepEqual([automation['name'], automation['description'], automation['componentType'], automation['componentId'], automation['componentName'], automation['migratedFrom']], ['Nightly Backup', 'Nightly Backup (catalog)', 'workflows', wfId, 'Catalog WF', catalogId]);
  const [manual, schedule] = triggers;
  assert.equal(triggers.length, 2);
  assert.deepEqual([manual!['type'], manual!['enabled'], manual!['formId'], manual!['actionId']], ['manual', true, '5f1e0c0c0c0c0c0c0c0c0c0c', automation['_id']]);
  assert.deepEqual([schedule!['type'], schedule!['enabled'], schedule!['firstRunAt'], schedule!['repeatInterval'], schedule!['processMissedRuns'], schedule!['nextRunAt']], ['schedule', false, Date.parse(nextRunAt), HOUR, 'none', null]);
  assert.deepEqual(data(await send('GET', `/automations/${automation['_id'] as string}`)), automation);
  const listed = (await send('GET', `/triggers?actionId=${automation['_id'] as string}`)).body as { data: Json[] };
  assert.deepEqual(listed.data.map((t) => t['_id']).sort(), triggers.map((t) => t['_id']).sort());
  const catalog = (await core.store.collection('automations').findById(catalogId))!;
  assert.deepEqual([catalog['migratedToOM'], catalog['correspondingOMAutomationId'], catalog['_rev']], [true, automation['_id'], 1], 'the catalog automation is kept and marked');
});

test('migrating twice is 409 and creates nothing more', async () => {
  const catalogId = await catalogAutomation('Twice', { workflow: 'Catalog WF' });
  assert.equal((await send('POST', `/automations/migrate/${catalogId}`)).status, 200);
  const again = await send('POST', `/automations/migrate/${catalogId}`);
  assert.equal(again.status, 409);
  assert.equal((again.body as Json)['data'], null);
  assert.match((again.body as Json)['message'] as string, /already migrated/);
  const named = (await send('GET', '/automations?equals=Twice&equalsField=name')).body as { metadata: { total: number } };
  assert.equal(named.metadata.total, 1);
});

test('an unscheduled catalog automation (workflow by name) gets only a manual trigger, which runs its workflow', async () => {
  const catalogId = await catalogAutomation('On Demand', { workflow: 'Catalog WF' });
  const res = await send('POST', `/automations/migrate/${catalogId}`);
  const { automation, triggers } = data(res) as { automation: Json; triggers: Json[] };
  assert.equal(automation['componentId'], wfId);
  assert.deepEqual(triggers.map((t) => [t['type'], t['formId']]), [['manual', null]]);
  const run = await send('POST', `/triggers/manual/${triggers[0]!['_id'] as string}/run`, { formData: { who: 'migrated' } });
  assert.equal(run.status, 200, JSON.stringify(run.body));
  const ended = await waitFor(async () => {
    const job = data(await send('GET', `/jobs/${data(run)['_id'] as string}`));
    return job['status'] === 'complete' ? job : null;
  });
  assert.equal((ended['variables'] as Json)['who'], 'migrated');
});

test('a cron schedule cannot repeat as an interval: the schedule trigger runs once and the answer warns', async () => {
  const catalogId = await catalogAutomation('Weekdays', { workflowId: wfId }, { nextRunAt: null, repeatInterval: '0 9 * * 1-5' });
  const res = await send('POST', `/automations/migrate/${catalogId}`);
  assert.equal(res.status, 200);
  const schedule = (data(res)['triggers'] as Json[]).find((t) => t['type'] === 'schedule')!;
  assert.deepEqual([schedule['enabled'], schedule['repeatInterval']], [false, null]);
  const warnings = ((res.body as { metadata: { warnings: string[] } }).metadata.warnings);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /cron expression/);
});

test('unknown catalog automations are 404; a missing workflow is 400 and leaves nothing behind; a deleted migration may be redone', async () => {
  assert.equal((await send('POST', '/automations/migrate/0123456789abcdef01234567')).status, 404);
  assert.equal((await send('POST', `/automations/migrate/${await catalogAutomation('With Body', {})}`, { name: 'x' })).status, 400, 'nothing is taken from the body');
  const broken = await catalogAutomation('Broken', { workflow: 'No Such WF' });
  assert.equal((await send('POST', `/automations/migrate/${broken}`)).status, 400);
  assert.equal(((await send('GET', '/automations?equals=Broken&equalsField=name')).body as { metadata: { total: number } }).metadata.total, 0);
  const redo = await catalogAutomation('Redo', { workflowId: wfId });
  const first = data(await send('POST', `/automations/migrate/${redo}`)) as { automation: Json };
  assert.equal((await send('DELETE', `/automations/${first.automation['_id'] as string}`)).status, 200);
  const second = await send('POST', `/automations/migrate/${redo}`);
  assert.equal(second.status, 200);
  assert.notEqual((data(second) as { automation: Json }).automation['_id'], first.automation['_id']);
});
