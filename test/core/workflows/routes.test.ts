/**
 * Automation Studio workflow routes over HTTP on the real core: create, read
 * by id and by name, list, update and delete with their exact answers; unique
 * names; deletion refused while jobs use the workflow; roles on writes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { createWorkflowLookup } from '../../../core/src/workflows/lookup.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { makeUser, role } from '../../helpers/users.ts';

type Json = Record<string, unknown>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The smallest workflow that saves: start, one task, end. */
function simple(name: string): Json {
  return {
    name,
    description: `${name} (test)`,
    tasks: {
      workflow_start: { name: 'workflow_start', groups: [] },
      b1: { name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { name: 'x', value: 1 }, outgoing: { value: '$var.job.x' }, error: '', decorators: [] } },
      workflow_end: { name: 'workflow_end', groups: [] },
    },
    transitions: { workflow_start: { b1: { type: 'standard', state: 'success' } }, b1: { workflow_end: { type: 'standard', state: 'success' } }, workflow_end: {} },
  };
}

let core: RunningCore;
before(async () => {
  core = await startCore((await openTestStore()));
});
after(() => core.close());

const send = (method: string, path: string, body?: unknown, token?: string | null): Promise<JsonResponse> =>
  core.request(path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), ...(token === undefined ? {} : { token }) });

async function create(doc: Json): Promise<Json> {
  const res = await send('POST', '/automation-studio/automations', { automation: doc });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { created: Json }).created;
}

test('creating answers {created, edit} with a new UUID and the defaults and authorship the platform fills', async () => {
  const input = simple('Create Answer');
  const res = await send('POST', '/automation-studio/automations', { automation: input });
  assert.equal(res.status, 200);
  const { created, edit } = res.body as { created: Json; edit: string };
  const id = created['_id'] as string;
  assert.match(id, UUID);
  assert.match(created['created'] as string, ISO);
  assert.deepEqual(res.body, {
    created: {
      _id: id, ...input, type: 'automation', canvasVersion: 3, encodingVersion: 1, font_size: 12, groups: [],
      created: created['created'], created_by: 'admin', last_updated: created['created'], last_updated_by: 'admin',
    },
    edit: `/automation-studio/#/edit?automation_id=${id}`,
  });
  assert.equal(edit, `/automation-studio/#/edit?automation_id=${id}`);
  assert.deepEqual(await core.store.collection('workflows').findById(id), created);
});

test('a valid _id in the body is kept (lower-cased), an invalid one is refused, a taken one is a conflict', async () => {
  const given = 'A1B2C3D4-0000-4000-8000-00000000ABCD';
  const created = await create({ ...simple('Given Id'), _id: given });
  assert.equal(created['_id'], given.toLowerCase());
  const bad = await send('POST', '/automation-studio/automations', { automation: { ...simple('Bad Id'), _id: 'not-an-id' } });
  assert.equal(bad.status, 400);
  assert.deepEqual((bad.body as { details: Json[] }).details.map((d) => d['parameter']), ['automation._id']);
  const taken = await send('POST', '/automation-studio/automations', { automation: { ...simple('Other Name'), _id: given } });
  assert.equal(taken.status, 409);
  assert.equal((taken.body as Json)['code'], 'CONFLICT');
});

test('a workflow is read by id and by exact name; an unknown one is 404 in the plain shape', async () => {
  const created = await create(simple('Read Me Twice'));
  const byId = await send('GET', `/automation-studio/automations/${created['_id'] as string}`);
  assert.equal(byId.status, 200);
  assert.deepEqual(byId.body, created);
  const byName = await send('GET', `/automation-studio/automations/${encodeURIComponent('Read Me Twice')}`);
  assert.equal(byName.status, 200);
  assert.deepEqual(byName.body, created);
  const missing = await send('GET', `/automation-studio/automations/${encodeURIComponent('read me twice')}`);
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: 'Workflow read me twice not found', code: 'NOT_FOUND', details: [] });
  assert.equal((await send('GET', '/automation-studio/automations/Read%20Me')).status, 404, 'a name is matched whole, not as a prefix');
});

test('the engine\'s lookup finds a workflow by exact name or by id, and nothing else', async () => {
  const created = await create(simple('Looked Up'));
  const lookup = createWorkflowLookup(core.store);
  assert.deepEqual(await lookup.byName('Looked Up'), created);
  assert.deepEqual(await lookup.byId((created['_id'] as string).toUpperCase()), created);
  assert.equal(await lookup.byName('Looked'), null);
  assert.equal(await lookup.byName('looked up'), null);
  assert.equal(await lookup.byId('00000000-0000-4000-8000-000000000000'), null);
});

test('names are unique: a second workflow with the same name is 409 and is not stored', async () => {
  await create(simple('Only Once'));
  const res = await send('POST', '/automation-studio/automations', { automation: simple('Only Once') });
  assert.equal(res.status, 409);
  assert.deepEqual(res.body, { message: 'A workflow named Only Once already exists', code: 'CONFLICT', details: [{ parameter: 'name', message: 'is already the name of another workflow' }] });
  const list = await send('GET', '/automation-studio/automations?equals=Only%20Once&equalsField=name');
  assert.equal((list.body as { total: number }).total, 1);
});

test('the list answers {items, total, skip, limit} in name order, with paging and the name filters', async () => {
  for (const n of ['List-C', 'List-A', 'List-B', 'Other-List']) await create(simple(n));
  const names = (res: JsonResponse): string[] => (res.body as { items: Json[] }).items.map((w) => w['name'] as string);
  const page = await send('GET', '/automation-studio/automations?startsWith=List-&startsWithField=name&limit=2&skip=1');
  assert.equal(page.status, 200);
  const body = page.body as Json;
  assert.deepEqual(Object.keys(body).sort(), ['items', 'limit', 'skip', 'total']);
  assert.deepEqual([body['total'], body['skip'], body['limit']], [3, 1, 2]);
  assert.deepEqual(names(page), ['List-B', 'List-C']);
  assert.deepEqual(names(await send('GET', '/automation-studio/automations?contains=-List&containsField=name')), ['Other-List']);
  assert.deepEqual(names(await send('GET', '/automation-studio/automations?equals=List-A&equalsField=name')), ['List-A']);
  assert.deepEqual(names(await send('GET', '/automation-studio/automations?startsWith=List-&startsWithField=name&order=-1')), ['List-C', 'List-B', 'List-A']);
  const whole = (await send('GET', '/automation-studio/automations?startsWith=List-A&startsWithField=name')).body as { items: Json[] };
  assert.deepEqual(whole.items[0], (await send('GET', '/automation-studio/automations/List-A')).body, 'items are whole workflows');
  assert.deepEqual(names(await send('GET', '/automation-studio/automations?startsWith=List&startsWithField=name&equals=List-B%20(test)&equalsField=description')), ['List-B']);
  const refused = async (query: string): Promise<unknown[]> => {
    const res = await send('GET', `/automation-studio/automations?${query}`);
    assert.equal(res.status, 400, query);
    return (res.body as { details: Json[] }).details.map((d) => d['parameter']);
  };
  assert.deepEqual(await refused('equals=x&equalsField=tasks'), ['query.equalsField']);
  assert.deepEqual(await refused('equals=x&equalsField=_id'), ['equals'], 'an id filter wants a UUID');
  assert.deepEqual(await refused('sort=description'), ['query.sort']);
  assert.deepEqual(await refused('limit=1001'), ['query.limit']);
  assert.equal((await send('GET', '/automation-studio/automations?equals=x')).status, 400, 'a value needs its field');
  assert.equal((await send('GET', '/automation-studio/automations?filter=x')).status, 400, 'unknown parameters are refused');
});

test('an update is laid over the stored workflow, checked, saved, and answered as the saved workflow', async () => {
  const created = await create(simple('Before Update'));
  const id = created['_id'] as string;
  const res = await send('PUT', `/automation-studio/automations/${id}`, { update: { name: 'After Update', description: 'changed', created_by: 'someone-else' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const updated = res.body as Json;
  assert.match(updated['last_updated'] as string, ISO);
  assert.ok((updated['last_updated'] as string) >= (created['last_updated'] as string));
  assert.deepEqual(updated, { ...created, name: 'After Update', description: 'changed', last_updated: updated['last_updated'], last_updated_by: 'admin' });
  assert.deepEqual((await send('GET', `/automation-studio/automations/${id}`)).body, updated);
  assert.equal((await send('GET', '/automation-studio/automations/Before%20Update')).status, 404);
});

test('an update may not change the id, take another workflow\'s name, or leave the workflow invalid', async () => {
  await create(simple('Taken Name'));
  const id = (await create(simple('Will Be Refused')))['_id'] as string;
  const other = await send('PUT', `/automation-studio/automations/${id}`, { update: { _id: '00000000-0000-4000-8000-000000000000' } });
  assert.equal(other.status, 400);
  assert.deepEqual((other.body as { details: Json[] }).details.map((d) => d['parameter']), ['update._id']);
  const clash = await send('PUT', `/automation-studio/automations/${id}`, { update: { name: 'Taken Name' } });
  assert.equal(clash.status, 409);
  const broken = await send('PUT', `/automation-studio/automations/${id}`, { update: { transitions: { workflow_start: { b1: { type: 'standard', state: 'done' } }, b1: { workflow_end: { type: 'standard', state: 'success' } } } } });
  assert.equal(broken.status, 400);
  assert.deepEqual((broken.body as { details: Json[] }).details.map((d) => d['parameter']), ['update.transitions.workflow_start.b1.state']);
  const stored = (await send('GET', `/automation-studio/automations/${id}`)).body as Json;
  assert.equal(stored['name'], 'Will Be Refused', 'nothing refused was saved');
  assert.equal((await send('PUT', '/automation-studio/automations/00000000-0000-4000-8000-00000000dead', { update: {} })).status, 404);
  assert.equal((await send('PUT', `/automation-studio/automations/${id}`, { name: 'x' })).status, 400, 'the body is {update}');
});

test('delete answers {deleted: {_id, name}}; the workflow is gone; unknown ids are 404 and malformed ones 400', async () => {
  const created = await create(simple('Delete Me'));
  const id = created['_id'] as string;
  const res = await send('DELETE', `/automation-studio/automations/${id}`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { deleted: { _id: id, name: 'Delete Me' } });
  assert.equal((await send('GET', `/automation-studio/automations/${id}`)).status, 404);
  assert.equal((await send('DELETE', `/automation-studio/automations/${id}`)).status, 404);
  assert.equal((await send('DELETE', '/automation-studio/automations/Delete%20Me')).status, 400);
});

test('delete is refused while a job of the workflow is running or paused, and allowed once none is', async () => {
  const id = (await create(simple('In Use')))['_id'] as string;
  const jobs = core.store.collection('jobs');
  const job = (n: number, status: string): Json => ({ _id: `${'0'.repeat(22)}${n.toString(16).padStart(2, '0')}`, name: 'In Use', status, groups: [] });
  await jobs.insertOne(job(1, 'running'));
  await jobs.insertOne(job(2, 'complete'));
  await jobs.insertOne({ ...job(3, 'running'), name: 'In Use Too' });
  const one = await send('DELETE', `/automation-studio/automations/${id}`);
  assert.equal(one.status, 409);
  assert.deepEqual(one.body, {
    message: 'Workflow In Use is used by 1 job that is running or paused; cancel or finish it first',
    code: 'CONFLICT',
    details: [{ parameter: 'id', message: '1 job running or paused' }],
  });
  await jobs.insertOne(job(4, 'paused'));
  const two = await send('DELETE', `/automation-studio/automations/${id}`);
  assert.equal(two.status, 409);
  assert.match((two.body as { message: string }).message, /used by 2 jobs that are running or paused/);
  await jobs.replaceOne(job(1, 'complete'));
  await jobs.replaceOne(job(4, 'canceled'));
  const done = await send('DELETE', `/automation-studio/automations/${id}`);
  assert.equal(done.status, 200, JSON.stringify(done.body));
});

test('writes need a write role: no roles is 403 everywhere, apiread may read only, designer may write', async () => {
  const id = (await create(simple('Guarded')))['_id'] as string;
  const nobody = await makeUser(core, 'wf-nobody');
  const reader = await makeUser(core, 'wf-reader', { roles: [role('AutomationStudio', 'apiread')] });
  const designer = await makeUser(core, 'wf-designer', { roles: [role('AutomationStudio', 'designer')] });
  const writes = [
    ['POST', '/automation-studio/automations', { automation: simple('Guarded 2') }],
    ['PUT', `/automation-studio/automations/${id}`, { update: { description: 'x' } }],
    ['DELETE', `/automation-studio/automations/${id}`, undefined],
  ] as const;
  for (const token of [nobody.token, reader.token]) {
    for (const [method, path, body] of writes) {
      const res = await send(method, path, body, token);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.equal((res.body as Json)['code'], 'FORBIDDEN');
    }
  }
  assert.equal((await send('GET', '/automation-studio/automations', undefined, nobody.token)).status, 403);
  assert.equal((await send('GET', `/automation-studio/automations/${id}`, undefined, reader.token)).status, 200);
  assert.equal((await send('GET', '/automation-studio/automations', undefined, reader.token)).status, 200);
  const made = await send('POST', '/automation-studio/automations', { automation: simple('By Designer') }, designer.token);
  assert.equal(made.status, 200);
  assert.equal((made.body as { created: Json }).created['created_by'], 'wf-designer');
  const edited = await send('PUT', `/automation-studio/automations/${id}`, { update: { description: 'y' } }, designer.token);
  assert.equal((edited.body as Json)['last_updated_by'], 'wf-designer');
  assert.equal((edited.body as Json)['created_by'], 'admin');
});
