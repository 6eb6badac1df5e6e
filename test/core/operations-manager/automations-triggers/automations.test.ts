/**
 * Operations-manager automations over HTTP on the real core: create, read,
 * list with the generic filters (bracket syntax refused), change, delete
 * with their triggers, export and import with triggers, clone, roles.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../../helpers/stores.ts';
import { startCore } from '../../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../../helpers/core.ts';
import { newVariable, workflow } from '../../../helpers/engine.ts';
import { makeUser, role } from '../../../helpers/users.ts';

type Json = Record<string, unknown>;
const OBJECT_ID = /^[0-9a-f]{24}$/;

let core: RunningCore;
let wfId = '';
let otherWfId = '';

const send = (method: string, path: string, body?: unknown, token?: string): Promise<JsonResponse> =>
  core.request(`/operations-manager${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), ...(token ? { token } : {}) });

async function makeWorkflow(name: string): Promise<string> {
  const res = await core.request('/automation-studio/automations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ automation: workflow(name, { a1b2: newVariable('x', 1) }, [['workflow_start', 'a1b2'], ['a1b2', 'workflow_end']]) }) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return ((res.body as { created: Json }).created['_id'] as string);
}

async function create(body: Json): Promise<Json> {
  const res = await send('POST', '/automations', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: Json }).data;
}

const data = (res: JsonResponse): Json => (res.body as { data: Json }).data;
const names = (res: JsonResponse): string[] => (res.body as { data: Json[] }).data.map((a) => a['name'] as string);

before(async () => {
  core = await startCore((await openTestStore()));
  wfId = await makeWorkflow('OM Auto WF');
  otherWfId = await makeWorkflow('OM Other WF');
});
after(() => core.close());

test('creating answers the envelope with the automation in the platform shape, the workflow named by id and by name', async () => {
  const res = await send('POST', '/automations', { name: 'Create Shape', description: 'd', componentType: 'workflows', componentId: wfId });
  assert.equal(res.status, 200);
  const body = res.body as { message: string; data: Json; metadata: Json };
  assert.deepEqual(Object.keys(body).sort(), ['data', 'message', 'metadata']);
  assert.equal(body.message, 'Successfully created automation');
  assert.match(body.data['_id'] as string, OBJECT_ID);
  const { _id, created, createdBy, lastUpdated, lastUpdatedBy, ...shape } = body.data;
  assert.deepEqual(shape, { name: 'Create Shape', description: 'd', componentType: 'workflows', componentId: wfId, componentName: 'OM Auto WF' });
  assert.ok(typeof created === 'string' && created === lastUpdated && createdBy === lastUpdatedBy);
  assert.ok(!('_rev' in body.data), 'the revision counter is not shown');
  const byName = await create({ name: 'By Workflow Name', componentName: 'OM Other WF' });
  assert.equal(byName['componentId'], otherWfId);
  const read = await send('GET', `/automations/${_id as string}`);
  assert.deepEqual(read.body, { message: 'Successfully retrieved automation', data: body.data, metadata: {} });
});

test('unknown workflows, mismatched id and name, duplicate names and bad ids are refused in the envelope', async () => {
  const unknown = await send('POST', '/automations', { name: 'No WF', componentId: '00000000-0000-4000-8000-000000000000' });
  assert.equal(unknown.status, 400);
  assert.deepEqual(unknown.body, { message: 'No workflow has the id 00000000-0000-4000-8000-000000000000', data: null, metadata: { errors: [{ parameter: 'body.componentId', message: 'names no workflow' }] } });
  assert.equal((await send('POST', '/automations', { name: 'Mismatch', componentId: wfId, componentName: 'OM Other WF' })).status, 400);
  await create({ name: 'Taken Name' });
  const dup = await send('POST', '/automations', { name: 'Taken Name' });
  assert.equal(dup.status, 409);
  assert.equal((dup.body as Json)['data'], null);
  assert.equal((await send('POST', '/automations', { name: 'x', componentType: 'jst' })).status, 400);
  const missing = await send('GET', '/automations/0123456789abcdef01234567');
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: 'Automation 0123456789abcdef01234567 was not found', data: null, metadata: {} });
  assert.equal((await send('GET', '/automations/not-an-id')).status, 400);
});

test('the list uses the generic filters with pagination metadata; bracket syntax is refused naming the generic filters', async () => {
  for (const n of ['Flt-B', 'Flt-A', 'Flt-C', 'Other-Flt']) await create({ name: n, description: `about ${n}` });
  const page = await send('GET', '/automations?startsWith=Flt-&startsWithField=name&limit=2&skip=1');
  assert.equal(page.status, 200);
  assert.equal((page.body as Json)['message'], 'Successfully retrieved automations');
  assert.deepEqual(names(page), ['Flt-B', 'Flt-C']);
  assert.deepEqual((page.body as Json)['metadata'], { skip: 1, limit: 2, nextPageSkip: null, previousPageSkip: 0, total: 3, currentPageSize: 2 });
  assert.deepEqual(names(await send('GET', '/automations?equals=Flt-A&equalsField=name')), ['Flt-A']);
  assert.deepEqual(names(await send('GET', '/automations?contains=-Flt&containsField=name')), ['Other-Flt']);
  assert.deepEqual(names(await send('GET', '/automations?startsWith=Flt&startsWithField=name&sort=name&order=-1')), ['Flt-C', 'Flt-B', 'Flt-A']);
  assert.deepEqual(names(await send('GET', '/automations?equals=about%20Flt-B&equalsField=description')), ['Flt-B']);
  const bracket = await send('GET', '/automations?equals[name]=Flt-A');
  assert.equal(bracket.status, 400);
  const meta = (bracket.body as { metadata: { errors: Json[] } }).metadata.errors;
  assert.equal(meta[0]!['parameter'], 'equals[name]');
  assert.match(meta[0]!['message'] as string, /generic filters \(equals=<value>&equalsField=<field>/);
  assert.equal((await send('GET', '/automations?q=%7B%7D')).status, 400);
  assert.equal((await send('GET', '/automations?equals=x')).status, 400, 'a value needs its field');
  assert.equal((await send('GET', '/automations?sort=description')).status, 400, 'only indexed fields sort');
  assert.equal((await send('GET', '/automations?enabled=true')).status, 400, 'enabled filters triggers, not automations');
});

test('PATCH changes fields and re-resolves the workflow; a taken name is 409', async () => {
  const a = await create({ name: 'Patch Me', componentId: wfId });
  const res = await send('PATCH', `/automations/${a['_id'] as string}`, { description: 'new', componentName: 'OM Other WF' });
  assert.equal(res.status, 200);
  assert.equal((res.body as Json)['message'], 'Successfully updated automation');
  assert.deepEqual([data(res)['description'], data(res)['componentId'], data(res)['componentName']], ['new', otherWfId, 'OM Other WF']);
  assert.deepEqual(data(await send('GET', `/automations/${a['_id'] as string}`)), data(res));
  await create({ name: 'Patch Taken' });
  assert.equal((await send('PATCH', `/automations/${a['_id'] as string}`, { name: 'Patch Taken' })).status, 409);
  assert.equal((await send('PATCH', `/automations/${a['_id'] as string}`, {})).status, 400, 'an empty change is refused');
  assert.equal((await send('PATCH', '/automations/0123456789abcdef01234567', { description: 'x' })).status, 404);
});

test('deleting an automation deletes its triggers', async () => {
  const a = await create({ name: 'Delete Me', componentId: wfId });
  const keep = await create({ name: 'Keep Me', componentId: wfId });
  for (const [name, actionId] of [['d1', a['_id']], ['d2', a['_id']], ['k1', keep['_id']]]) {
    assert.equal((await send('POST', '/triggers', { name, type: 'manual', actionId })).status, 200);
  }
  const res = await send('DELETE', `/automations/${a['_id'] as string}`);
  assert.deepEqual(res.body, { message: 'Successfully deleted automation', data: null, metadata: { deletedTriggers: 2 } });
  assert.equal((await send('GET', `/automations/${a['_id'] as string}`)).status, 404);
  assert.deepEqual(names(await send('GET', `/triggers?actionId=${a['_id'] as string}`)), []);
  assert.deepEqual(names(await send('GET', `/triggers?actionId=${keep['_id'] as string}`)), ['k1']);
  assert.equal((await send('DELETE', `/automations/${a['_id'] as string}`)).status, 404);
});

test('export carries the triggers; import recreates both (triggers pointed at the new automation) and reports failures per item', async () => {
  const a = await create({ name: 'Export Me', componentId: wfId });
  await send('POST', '/triggers', { name: 'exp-manual', type: 'manual', actionId: a['_id'], formId: 'f1' });
  const exported = data(await send('GET', `/automations/${a['_id'] as string}/export`));
  assert.equal((exported['triggers'] as Json[]).length, 1);
  await send('DELETE', `/automations/${a['_id'] as string}`);
  const res = await send('PUT', '/automations', { automations: [exported, { name: 'Export Me' }, { description: 'no name' }] });
  assert.equal(res.status, 200);
  const body = res.body as { message: string; data: Json[]; metadata: { failures: Json[] } };
  assert.equal(body.message, 'Successfully imported 1 of 3 documents');
  assert.deepEqual(body.metadata.failures.map((f) => f['parameter']), ['automations[1]', 'automations[2]']);
  assert.equal(body.data[0]!['_id'], a['_id'], 'the exported id is kept');
  const triggers = (await send('GET', `/triggers?actionId=${a['_id'] as string}`)).body as { data: Json[] };
  assert.deepEqual(triggers.data.map((t) => [t['name'], t['formId'], t['actionId']]), [['exp-manual', 'f1', a['_id']]]);
});

test('an import whose workflow id is unknown here finds the workflow by name', async () => {
  const res = await send('PUT', '/automations', { automations: [{ name: 'Imported Elsewhere', componentType: 'workflows', componentId: '11111111-1111-4111-8111-111111111111', componentName: 'OM Auto WF' }] });
  assert.equal((res.body as { data: Json[] }).data[0]!['componentId'], wfId);
});

test('clone copies the automation and its triggers, the copies disabled', async () => {
  const a = await create({ name: 'Clone Source', componentId: wfId });
  await send('POST', '/triggers', { name: 'clone-ep', type: 'endpoint', routeName: 'clone-route', actionId: a['_id'] });
  const res = await send('POST', '/automations/clone', { id: a['_id'], name: 'Clone Copy' });
  assert.equal(res.status, 200);
  const copy = data(res);
  assert.deepEqual([copy['name'], copy['componentId']], ['Clone Copy', wfId]);
  assert.notEqual(copy['_id'], a['_id']);
  const copies = ((res.body as { metadata: { triggers: Json[] } }).metadata.triggers);
  assert.deepEqual(copies.map((t) => [t['name'], t['routeName'], t['enabled'], t['actionId']]), [['clone-ep', 'clone-route', false, copy['_id']]]);
  const defaultName = await send('POST', '/automations/clone', { id: a['_id'] });
  assert.equal(data(defaultName)['name'], 'Clone Source (copy)');
  assert.equal((await send('POST', '/automations/clone', { id: a['_id'] })).status, 409, 'the default name is taken now');
});

test('reads need a reading role, writes a writing one', async () => {
  const reader = await makeUser(core, 'om-auto-reader', { roles: [role('OperationsManager', 'apiread')] });
  const writer = await makeUser(core, 'om-auto-writer', { roles: [role('OperationsManager', 'operations')] });
  assert.equal((await send('GET', '/automations', undefined, reader.token)).status, 200);
  const refused = await send('POST', '/automations', { name: 'By Reader' }, reader.token);
  assert.equal(refused.status, 403);
  assert.equal((refused.body as Json)['data'], null);
  assert.equal((await send('POST', '/automations', { name: 'By Writer' }, writer.token)).status, 200);
});
