/**
 * invokeServiceOrder over HTTP: an order starts the service's workflow with
 * the form data as job variables and the job runs to completion; data the
 * form's schema refuses is a 400 naming every field; the service may be named
 * three ways; unknown services are 404 and a vanished workflow 400.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { createWorkflow, newVariable, waitFor, workflow } from '../../helpers/engine.ts';
import { makeGroup, makeUser, role } from '../../helpers/users.ts';

type Doc = Record<string, unknown>;

let core: RunningCore;
let store: Store;
let service: Doc;

const json = { 'content-type': 'application/json' };
const MISSING = '0000000000000000000000a1';
const schema = {
  type: 'object',
  required: ['hostname', 'vlan'],
  additionalProperties: false,
  properties: {
    hostname: { type: 'string', minLength: 2 },
    vlan: { type: 'integer', minimum: 1, maximum: 4094 },
    interfaces: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
  },
};

function post(path: string, body: unknown, token?: string): Promise<JsonResponse> {
  return core.request(`/service_catalog${path}`, { method: 'POST', headers: json, body: JSON.stringify(body), ...(token ? { token } : {}) });
}

function parameters(res: JsonResponse): string[] {
  return ((res.body as { details?: Array<{ parameter: string }> }).details ?? []).map((d) => d.parameter);
}

async function jobStatus(id: string): Promise<Doc> {
  const res = await core.request(`/operations-manager/jobs/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: Doc }).data;
}

before(async () => {
  store = await openTestStore();
  core = await startCore(store);
  // The task copies a form field into a new variable: the job really ran on the order's data.
  await createWorkflow(core, workflow('configure vlan', { a1: newVariable('greeting', '$var.job.hostname') }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  const res = await post('/AddNewService', { service: { name: 'vlan service', workflow: 'configure vlan' }, form: { name: 'vlan form', schema } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  service = res.body as Doc;
});
after(async () => {
  await core.close();
  await store.close();
});

test('a service order produces a job with the form data as its variables, which runs to complete', async () => {
  const formData = { hostname: 'r1', vlan: 42, interfaces: [{ name: 'Gi0/1' }] };
  const res = await post('/invokeServiceOrder', { serviceId: service['_id'], formData });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const started = res.body as Doc;
  assert.match(String(started['_id']), /^[0-9a-f]{24}$/);
  assert.equal(started['name'], 'configure vlan');
  const startVariables = started['variables'] as Doc;
  for (const [key, value] of Object.entries(formData)) assert.deepEqual(startVariables[key], value, key);
  for (const hidden of ['_rev', '_runs', 'output']) assert.ok(!(hidden in started), `${hidden} is not shown`);
  const done = await waitFor(async () => {
    const job = await jobStatus(String(started['_id']));
    return job['status'] === 'complete' ? job : null;
  });
  // The engine adds the job's _id and initiator, as the platform does; the workflow added greeting.
  assert.deepEqual(done['variables'], { ...formData, _id: started['_id'], initiator: 'admin', greeting: 'r1' });
});

test('form data the schema refuses is a 400 naming every offending field, and no job starts', async () => {
  const before = await store.collection('jobs').count(null);
  const res = await post('/invokeServiceOrder', { serviceId: service['_id'], formData: { vlan: 5000, colour: 'red', interfaces: [{}] } });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal((res.body as { code: string }).code, 'VALIDATION_FAILED');
  assert.deepEqual(parameters(res).sort(), ['body.formData.colour', 'body.formData.hostname', 'body.formData.interfaces[0].name', 'body.formData.vlan']);
  assert.match((res.body as { message: string }).message, /vlan form/);
  const empty = await post('/invokeServiceOrder', { serviceId: service['_id'] });
  assert.equal(empty.status, 400);
  assert.deepEqual(parameters(empty).sort(), ['body.formData.hostname', 'body.formData.vlan']);
  assert.equal(await store.collection('jobs').count(null), before);
});

test('the service may be named by service_id or by name, but only one way', async () => {
  const formData = { hostname: 'r2', vlan: 7 };
  const byLegacyId = await post('/invokeServiceOrder', { service_id: service['_id'], formData });
  assert.equal(byLegacyId.status, 200, JSON.stringify(byLegacyId.body));
  const legacyJob = byLegacyId.body as Doc;
  assert.deepEqual(legacyJob['variables'], { ...formData, _id: legacyJob['_id'], initiator: 'admin', greeting: 'r2' });
  const byName = await post('/invokeServiceOrder', { name: 'vlan service', formData, description: 'ordered by name' });
  assert.equal(byName.status, 200, JSON.stringify(byName.body));
  assert.equal((byName.body as Doc)['description'], 'ordered by name');
  const twice = await post('/invokeServiceOrder', { serviceId: service['_id'], name: 'vlan service', formData });
  assert.equal(twice.status, 400);
  const none = await post('/invokeServiceOrder', { formData });
  assert.equal(none.status, 400);
  assert.match((none.body as { message: string }).message, /serviceId, service_id or name/);
});

test('unknown services are 404; a service whose workflow is gone is a 400 naming it', async () => {
  assert.equal((await post('/invokeServiceOrder', { serviceId: MISSING, formData: {} })).status, 404);
  assert.equal((await post('/invokeServiceOrder', { name: 'no such service', formData: {} })).status, 404);
  await createWorkflow(core, workflow('short lived', { a1: newVariable('x', 1) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  const added = await post('/AddNewService', { service: { name: 'orphan', workflow: 'short lived', formId: service['formId'] } });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  const list = await core.request('/automation-studio/automations?equals=short%20lived&equalsField=name');
  const wf = (list.body as { items: Doc[] }).items[0]!;
  assert.equal((await core.request(`/automation-studio/automations/${String(wf['_id'])}`, { method: 'DELETE' })).status, 200);
  const res = await post('/invokeServiceOrder', { name: 'orphan', formData: { hostname: 'r3', vlan: 3 } });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.match((res.body as { message: string }).message, /no workflow is named short lived/);
});

test('ordering needs an order role; a service restricted to groups is unknown to non-members', async () => {
  const reader = await makeUser(core, 'catalog reader', { roles: [role('ServiceCatalog', 'apiread')] });
  const refused = await post('/invokeServiceOrder', { serviceId: service['_id'], formData: { hostname: 'r4', vlan: 4 } }, reader.token);
  assert.equal(refused.status, 403);
  const noc = await makeGroup(core, 'noc');
  const restricted = await post('/AddNewService', { service: { name: 'noc only', workflow: 'configure vlan', formId: service['formId'], groups: [noc] } });
  assert.equal(restricted.status, 200, JSON.stringify(restricted.body));
  const operator = await makeUser(core, 'catalog operator', { roles: [role('ServiceCatalog', 'operations')] });
  const hidden = await post('/invokeServiceOrder', { name: 'noc only', formData: { hostname: 'r5', vlan: 5 } }, operator.token);
  assert.equal(hidden.status, 404);
  const open = await post('/invokeServiceOrder', { serviceId: service['_id'], formData: { hostname: 'r5', vlan: 5 } }, operator.token);
  assert.equal(open.status, 200, JSON.stringify(open.body));
  const member = await makeUser(core, 'noc member', { roles: [role('ServiceCatalog', 'operations')], groups: [noc] });
  const seen = await post('/invokeServiceOrder', { name: 'noc only', formData: { hostname: 'r6', vlan: 6 } }, member.token);
  assert.equal(seen.status, 200, JSON.stringify(seen.body));
});
