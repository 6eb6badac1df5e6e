/**
 * Services and forms over HTTP: AddNewService (inline form or formId),
 * UpdateService, deleteService, GetFormId, GetFormData, GetForms and
 * ServiceCatalogStore, with the 400s, 404s and 409s they answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { createWorkflow, newVariable, workflow } from '../../helpers/engine.ts';

type Doc = Record<string, unknown>;

let core: RunningCore;
let store: Store;

before(async () => {
  store = await openTestStore();
  core = await startCore(store);
  await createWorkflow(core, workflow('provision router', { a1: newVariable('done', true) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
});
after(async () => {
  await core.close();
  await store.close();
});

const json = { 'content-type': 'application/json' };
const MISSING = '0000000000000000000000a1';
const schema = { type: 'object', required: ['hostname'], properties: { hostname: { type: 'string' } } };

function post(path: string, body: unknown): Promise<JsonResponse> {
  return core.request(`/service_catalog${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });
}

function get(path: string): Promise<JsonResponse> {
  return core.request(`/service_catalog${path}`);
}

function parameters(res: JsonResponse): string[] {
  return ((res.body as { details?: Array<{ parameter: string }> }).details ?? []).map((d) => d.parameter);
}

async function addService(name: string, extra: Doc = {}): Promise<Doc> {
  const res = await post('/AddNewService', { service: { name, workflow: 'provision router', ...extra }, form: { name: `${name} form`, schema } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Doc;
}

test('AddNewService with an inline form stores both; GetFormId and GetFormData answer them', async () => {
  const uiSchema = { hostname: { 'ui:autofocus': true } };
  const res = await post('/AddNewService', { service: { name: 'router', description: 'A new router', workflow: 'provision router' }, form: { name: 'router form', schema, uiSchema } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const service = res.body as Doc;
  assert.match(String(service['_id']), /^[0-9a-f]{24}$/);
  assert.match(String(service['formId']), /^[0-9a-f]{24}$/);
  assert.deepEqual({ ...service, _id: 'x', formId: 'y', created: 'c', lastUpdated: 'u' }, {
    _id: 'x', name: 'router', description: 'A new router', formId: 'y', workflow: 'provision router', groups: [],
    created: 'c', createdBy: 'admin', lastUpdated: 'u', lastUpdatedBy: 'admin',
  });
  const byId = await get(`/GetFormId/${String(service['_id'])}`);
  assert.equal(byId.status, 200);
  assert.deepEqual(byId.body, service);
  const form = await get(`/GetFormData/${String(service['formId'])}`);
  assert.equal(form.status, 200);
  const f = form.body as Doc;
  assert.deepEqual([f['_id'], f['name'], f['schema'], f['uiSchema'], f['createdBy']], [service['formId'], 'router form', schema, uiSchema, 'admin']);
});

test('a service may reuse a stored form by formId; GetForms lists forms by name', async () => {
  const first = await addService('firewall');
  const res = await post('/AddNewService', { service: { name: 'firewall again', workflow: 'provision router', formId: first['formId'] } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal((res.body as Doc)['formId'], first['formId']);
  const forms = await get('/GetForms?limit=2');
  assert.equal(forms.status, 200);
  const body = forms.body as { results: Doc[]; total: number };
  assert.ok(body.total >= 2);
  assert.equal(body.results.length, 2);
  const names = body.results.map((r) => String(r['name']));
  assert.deepEqual(names, [...names].sort());
  const everything = (await get('/GetForms?limit=1000')).body as { results: Doc[] };
  assert.equal(everything.results.filter((r) => r['_id'] === first['formId']).length, 1, 'the reused form is stored once');
});

test('AddNewService names every problem at once: missing workflow, unknown group, missing form, bad fields', async () => {
  const res = await post('/AddNewService', { service: { name: 'broken', workflow: 'no such workflow', groups: [MISSING] } });
  assert.equal(res.status, 400);
  assert.deepEqual(parameters(res).sort(), ['body.service.formId', 'body.service.groups[0]', 'body.service.workflow']);
  assert.match(JSON.stringify(res.body), /no workflow is named no such workflow/);

  const both = await post('/AddNewService', { service: { name: 'both', workflow: 'provision router', formId: MISSING }, form: { name: 'both form', schema } });
  assert.equal(both.status, 400);
  assert.deepEqual(parameters(both), ['body.form']);

  const unknownForm = await post('/AddNewService', { service: { name: 'unknown form', workflow: 'provision router', formId: MISSING } });
  assert.equal(unknownForm.status, 400);
  assert.deepEqual(parameters(unknownForm), ['body.service.formId']);

  const joi = await post('/AddNewService', { service: { name: ' padded', workflow: 'provision router', colour: 'red' }, form: { schema } });
  assert.equal(joi.status, 400);
  assert.deepEqual(parameters(joi).sort(), ['body.form.name', 'body.service.colour', 'body.service.name']);
});

test('a form whose schema is not a usable JSON Schema is refused and nothing is stored', async () => {
  const res = await post('/AddNewService', { service: { name: 'bad schema', workflow: 'provision router' }, form: { name: 'bad schema form', schema: { type: 'objekt' } } });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.deepEqual(parameters(res), ['body.form.schema']);
  const forms = (await get('/GetForms?limit=1000')).body as { results: Doc[] };
  assert.ok(!forms.results.some((f) => f['name'] === 'bad schema form'));
  const services = (await get('/ServiceCatalogStore/bad%20schema')).body as { total: number };
  assert.equal(services.total, 0);
});

test('duplicate service and form names are 409, and a refused service leaves no form behind', async () => {
  await addService('duplicated');
  const again = await post('/AddNewService', { service: { name: 'duplicated', workflow: 'provision router' }, form: { name: 'fresh form', schema } });
  assert.equal(again.status, 409);
  assert.match((again.body as { message: string }).message, /service named duplicated/);
  const forms = (await get('/GetForms?limit=1000')).body as { results: Doc[] };
  assert.ok(!forms.results.some((f) => f['name'] === 'fresh form'), 'the form of a refused service is not kept');
  const formTaken = await post('/AddNewService', { service: { name: 'other', workflow: 'provision router' }, form: { name: 'duplicated form', schema } });
  assert.equal(formTaken.status, 409);
  assert.match((formTaken.body as { message: string }).message, /form named duplicated form/);
});

test('UpdateService changes the given fields, may attach a new form, and checks references and names', async () => {
  const service = await addService('switch');
  await addService('taken name');
  const res = await post('/UpdateService', { service: { _id: service['_id'], description: 'Access switch' }, form: { name: 'switch form v2', schema: { type: 'object' } } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const updated = res.body as Doc;
  assert.equal(updated['description'], 'Access switch');
  assert.equal(updated['name'], 'switch');
  assert.notEqual(updated['formId'], service['formId']);
  assert.equal(updated['created'], service['created']);
  assert.deepEqual((await get(`/GetFormId/${String(service['_id'])}`)).body, updated);
  assert.equal((await get(`/GetFormData/${String(updated['formId'])}`)).status, 200);

  const badWorkflow = await post('/UpdateService', { service: { _id: service['_id'], workflow: 'gone' } });
  assert.equal(badWorkflow.status, 400);
  assert.deepEqual(parameters(badWorkflow), ['body.service.workflow']);
  const clash = await post('/UpdateService', { service: { _id: service['_id'], name: 'taken name' } });
  assert.equal(clash.status, 409);
  const unknown = await post('/UpdateService', { service: { _id: MISSING, description: 'x' } });
  assert.equal(unknown.status, 404);
  const noId = await post('/UpdateService', { service: { description: 'x' } });
  assert.equal(noId.status, 400);
  assert.deepEqual(parameters(noId), ['body.service._id']);
});

test('deleteService removes the service but keeps its form; unknown and malformed ids are 404 and 400', async () => {
  const service = await addService('to delete');
  const withBody = await post(`/deleteService/${String(service['_id'])}`, { force: true });
  assert.equal(withBody.status, 400);
  assert.deepEqual(parameters(withBody), ['body.force']);
  const res = await post(`/deleteService/${String(service['_id'])}`, {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, { deleted: true, _id: service['_id'], name: 'to delete' });
  assert.equal((await get(`/GetFormId/${String(service['_id'])}`)).status, 404);
  assert.equal((await get(`/GetFormData/${String(service['formId'])}`)).status, 200);
  const again = await core.request(`/service_catalog/deleteService/${String(service['_id'])}`, { method: 'POST' });
  assert.equal(again.status, 404, 'a POST without any body is read as {}');
  const malformed = await post('/deleteService/not-an-id', {});
  assert.equal(malformed.status, 400);
  assert.deepEqual(parameters(malformed), ['params.id']);
  assert.equal((await get(`/GetFormData/${MISSING}`)).status, 404);
  assert.equal((await get(`/GetFormId/${MISSING}`)).status, 404);
});

test('ServiceCatalogStore: `all` lists every service by name, anything else is a name substring; paging works', async () => {
  await addService('vpn gold');
  await addService('vpn silver');
  const all = (await get('/ServiceCatalogStore/all?limit=1000')).body as { results: Doc[]; total: number };
  const names = all.results.map((s) => String(s['name']));
  assert.deepEqual(names, [...names].sort());
  assert.ok(names.includes('vpn gold') && names.includes('router'));
  assert.equal(all.total, names.length);
  const vpn = await get('/ServiceCatalogStore/vpn');
  assert.equal(vpn.status, 200);
  assert.deepEqual((vpn.body as { results: Doc[] }).results.map((s) => s['name']), ['vpn gold', 'vpn silver']);
  const page = (await get('/ServiceCatalogStore/vpn?limit=1&skip=1')).body as { results: Doc[]; total: number };
  assert.deepEqual([page.results.map((s) => s['name']), page.total], [['vpn silver'], 2]);
  assert.equal(((await get('/ServiceCatalogStore/VPN')).body as { total: number }).total, 0, 'the substring is case-sensitive');
  const badQuery = await get('/ServiceCatalogStore/all?colour=red');
  assert.equal(badQuery.status, 400);
});
