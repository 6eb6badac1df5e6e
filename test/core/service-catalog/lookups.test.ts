/**
 * The service catalog's lookups over HTTP: GetUserObject (the caller, as
 * whoami answers it), getGroups, GetWorkflows, and which roles may read,
 * write and order.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { createWorkflow, newVariable, workflow } from '../../helpers/engine.ts';
import { makeGroup, makeUser, role } from '../../helpers/users.ts';

type Doc = Record<string, unknown>;
interface List {
  results: Doc[];
  total: number;
}

let core: RunningCore;
let store: Store;

before(async () => {
  store = await openTestStore();
  core = await startCore(store);
  await createWorkflow(core, workflow('catalog wf b', { a1: newVariable('x', 1) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  await createWorkflow(core, workflow('catalog wf a', { a1: newVariable('x', 1) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']], { inputSchema: { type: 'object', properties: { x: { type: 'string' } } } }));
});
after(async () => {
  await core.close();
  await store.close();
});

const json = { 'content-type': 'application/json' };

function get(path: string, token?: string): Promise<JsonResponse> {
  return core.request(`/service_catalog${path}`, token ? { token } : {});
}

test('GetUserObject answers the caller exactly as whoami does', async () => {
  const noc = await makeGroup(core, 'noc', { roles: [role('ServiceCatalog', 'operations')] });
  const user = await makeUser(core, 'catalog user', { groups: [noc] });
  const res = await get('/GetUserObject', user.token);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const whoami = await core.request('/whoami', { token: user.token });
  assert.deepEqual(res.body, whoami.body);
  const body = res.body as { id: string; username: string; groups: Array<{ id: string; name: string }>; methods: Record<string, string[]>; roles: string[] };
  assert.equal(body.id, user.id);
  assert.equal(body.username, 'catalog user');
  assert.deepEqual(body.groups.map((g) => [g.id, g.name]), [[noc, 'noc']]);
  assert.deepEqual(body.roles, [role('ServiceCatalog', 'operations')]);
  assert.ok(body.methods['ServiceCatalog']?.includes('invokeServiceOrder'));
  assert.ok(!body.methods['ServiceCatalog']?.includes('AddNewServiceToCatalog'));
  const admin = (await get('/GetUserObject')).body as { username: string; methods: Record<string, string[]> };
  assert.equal(admin.username, 'admin');
  assert.ok(admin.methods['ServiceCatalog']?.includes('AddNewServiceToCatalog'));
});

test('getGroups lists groups by name without their role assignments, with the list parameters', async () => {
  await makeGroup(core, 'catalog editors', { roles: [role('ServiceCatalog', 'engineering')] });
  const res = await get('/getGroups?limit=1000');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const list = res.body as List;
  const names = list.results.map((g) => String(g['name']));
  assert.ok(names.includes('admins') && names.includes('catalog editors'));
  assert.deepEqual(names, [...names].sort());
  assert.equal(list.total, names.length);
  for (const g of list.results) assert.deepEqual(Object.keys(g).sort(), ['_id', 'description', 'inactive', 'name', 'provenance']);
  const filtered = (await get('/getGroups?equals=catalog%20editors&equalsField=name')).body as List;
  assert.deepEqual(filtered.results.map((g) => g['name']), ['catalog editors']);
  const bad = await get('/getGroups?sort=description');
  assert.equal(bad.status, 400);
});

test('GetWorkflows lists workflows by name without their tasks and transitions', async () => {
  const res = await get('/GetWorkflows?startsWith=catalog&startsWithField=name');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const list = res.body as List;
  assert.deepEqual(list.results.map((w) => w['name']), ['catalog wf a', 'catalog wf b']);
  assert.equal(list.total, 2);
  for (const w of list.results) {
    assert.ok(!('tasks' in w) && !('transitions' in w));
    assert.match(String(w['_id']), /^[0-9a-f-]{36}$/);
  }
  assert.deepEqual(list.results[0]!['inputSchema'], { type: 'object', properties: { x: { type: 'string' } } });
  const page = (await get('/GetWorkflows?startsWith=catalog&startsWithField=name&limit=1&skip=1')).body as List;
  assert.deepEqual([page.results.map((w) => w['name']), page.total], [['catalog wf b'], 2]);
});

test('readers read but may not write or order; engineering writes; apiwrite orders; nobody else gets in', async () => {
  const reader = await makeUser(core, 'reader', { roles: [role('ServiceCatalog', 'apiread')] });
  const engineer = await makeUser(core, 'engineer', { roles: [role('ServiceCatalog', 'engineering')] });
  const writer = await makeUser(core, 'api writer', { roles: [role('ServiceCatalog', 'apiwrite')] });
  const outsider = await makeUser(core, 'outsider', { roles: [role('AutomationStudio', 'apiread')] });
  const add = (token: string, name: string) =>
    core.request('/service_catalog/AddNewService', { method: 'POST', headers: json, token, body: JSON.stringify({ service: { name, workflow: 'catalog wf b' }, form: { name: `${name} form`, schema: { type: 'object' } } }) });
  assert.equal((await get('/ServiceCatalogStore/all', reader.token)).status, 200);
  assert.equal((await get('/GetForms', reader.token)).status, 200);
  assert.equal((await add(reader.token, 'by reader')).status, 403);
  assert.equal((await add(writer.token, 'by writer')).status, 403);
  const created = await add(engineer.token, 'by engineer');
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.equal((created.body as Doc)['createdBy'], 'engineer');
  const order = (token: string) => core.request('/service_catalog/invokeServiceOrder', { method: 'POST', headers: json, token, body: JSON.stringify({ name: 'by engineer', formData: {} }) });
  assert.equal((await order(reader.token)).status, 403);
  assert.equal((await order(writer.token)).status, 200);
  assert.equal((await get('/GetWorkflows', writer.token)).status, 403);
  assert.equal((await get('/ServiceCatalogStore/all', outsider.token)).status, 403);
  assert.equal((await core.request('/service_catalog/GetUserObject', { token: null })).status, 401);
});

test('a service restricted to groups is listed and shown only to members and ServiceCatalog admins', async () => {
  const team = await makeGroup(core, 'catalog team');
  const created = await core.request('/service_catalog/AddNewService', { method: 'POST', headers: json, body: JSON.stringify({ service: { name: 'team service', workflow: 'catalog wf b', groups: [team] }, form: { name: 'team form', schema: { type: 'object' } } }) });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const id = String((created.body as Doc)['_id']);
  const member = await makeUser(core, 'team member', { roles: [role('ServiceCatalog', 'apiread')], groups: [team] });
  const stranger = await makeUser(core, 'stranger', { roles: [role('ServiceCatalog', 'apiread')] });
  const listed = (token?: string) => get('/ServiceCatalogStore/team', token).then((r) => (r.body as List).results.map((s) => s['name']));
  assert.deepEqual(await listed(member.token), ['team service']);
  assert.deepEqual(await listed(stranger.token), []);
  assert.deepEqual(await listed(), ['team service']);
  assert.equal((await get(`/GetFormId/${id}`, member.token)).status, 200);
  assert.equal((await get(`/GetFormId/${id}`, stranger.token)).status, 404);
});
