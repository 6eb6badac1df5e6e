/**
 * Running automations through their triggers over HTTP: an endpoint
 * trigger's POST (body checked against its JSON Schema, then the job's
 * variables) and a manual trigger's run with formData; each job is polled
 * over HTTP until it completes. Disabled triggers are 400, unknown ones 404.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../../helpers/stores.ts';
import { startCore } from '../../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../../helpers/core.ts';
import { newVariable, waitFor, workflow } from '../../../helpers/engine.ts';
import { makeUser, role } from '../../../helpers/users.ts';

type Json = Record<string, unknown>;

let core: RunningCore;
let automationId = '';

const send = (method: string, path: string, body?: unknown, token?: string): Promise<JsonResponse> =>
  core.request(`/operations-manager${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }), ...(token ? { token } : {}) });
const data = (res: JsonResponse): Json => (res.body as { data: Json }).data;

async function trigger(body: Json): Promise<Json> {
  const res = await send('POST', '/triggers', { actionId: automationId, ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return data(res);
}

/** Polls the job over HTTP, as a client would, until it has ended. */
async function polledToEnd(jobId: string): Promise<Json> {
  return waitFor(async () => {
    const res = await send('GET', `/jobs/${jobId}`);
    assert.equal(res.status, 200);
    const job = data(res);
    return ['complete', 'error', 'canceled'].includes(job['status'] as string) ? job : null;
  });
}

before(async () => {
  core = await startCore((await openTestStore()));
  const wf = workflow('Run WF', { a1b2: newVariable('done', true) }, [['workflow_start', 'a1b2'], ['a1b2', 'workflow_end']]);
  const created = await core.request('/automation-studio/automations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ automation: wf }) });
  assert.equal(created.status, 200);
  const wfId = (created.body as { created: Json }).created['_id'];
  automationId = data(await send('POST', '/automations', { name: 'Run Me', componentId: wfId }))['_id'] as string;
});
after(() => core.close());

test('an endpoint trigger started over HTTP answers the job, which is polled to complete with the body as its variables', async () => {
  await trigger({ name: 'ep-run', type: 'endpoint', routeName: 'provision-device', schema: { type: 'object', required: ['device'], properties: { device: { type: 'string' }, count: { type: 'integer' } } } });
  const res = await send('POST', '/triggers/endpoint/provision-device', { device: 'r1', count: 2 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as { message: string; data: Json; metadata: Json };
  assert.equal(body.message, 'Successfully started the job');
  assert.deepEqual(body.metadata, {});
  assert.equal(body.data['name'], 'Run WF');
  assert.match(body.data['_id'] as string, /^[0-9a-f]{24}$/);
  assert.ok(!('_runs' in body.data) && !('_rev' in body.data), 'engine bookkeeping is not shown');
  const ended = await polledToEnd(body.data['_id'] as string);
  assert.equal(ended['status'], 'complete');
  const variables = ended['variables'] as Json;
  assert.deepEqual([variables['device'], variables['count'], variables['done']], ['r1', 2, true]);
});

test('a body that does not match the schema is 400 naming the field, and starts no job', async () => {
  const before = ((await send('GET', '/jobs?limit=0')).body as { metadata: { total: number } }).metadata.total;
  const res = await send('POST', '/triggers/endpoint/provision-device', { count: 'two' });
  assert.equal(res.status, 400);
  assert.equal((res.body as Json)['data'], null);
  const errs = (res.body as { metadata: { errors: Json[] } }).metadata.errors;
  assert.deepEqual(errs.map((e) => e['parameter']).sort(), ['body.count', 'body.device']);
  await core.core.engine.idle();
  assert.equal(((await send('GET', '/jobs?limit=0')).body as { metadata: { total: number } }).metadata.total, before);
});

test('a body that is not an object is refused even when the schema allows it', async () => {
  await trigger({ name: 'ep-any', type: 'endpoint', routeName: 'any-body' });
  assert.equal((await send('POST', '/triggers/endpoint/any-body', [1, 2])).status, 400);
  assert.equal((await send('POST', '/triggers/endpoint/any-body', {})).status, 200, 'an empty object is fine');
});

test('an unknown route is 404, a disabled endpoint trigger 400', async () => {
  const missing = await send('POST', '/triggers/endpoint/no-such-route', {});
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { message: 'No endpoint trigger serves POST no-such-route', data: null, metadata: {} });
  await trigger({ name: 'ep-off', type: 'endpoint', routeName: 'switched-off', enabled: false });
  const off = await send('POST', '/triggers/endpoint/switched-off', {});
  assert.equal(off.status, 400);
  assert.match((off.body as Json)['message'] as string, /is disabled/);
});

test('a manual trigger runs with formData as the job variables', async () => {
  const t = await trigger({ name: 'man-run', type: 'manual', formId: 'form-9' });
  const res = await send('POST', `/triggers/manual/${t['_id'] as string}/run`, { formData: { site: 'paris', vlan: 12 } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const ended = await polledToEnd(data(res)['_id'] as string);
  assert.equal(ended['status'], 'complete');
  const variables = ended['variables'] as Json;
  assert.deepEqual([variables['site'], variables['vlan']], ['paris', 12]);
  assert.equal((await send('POST', `/triggers/manual/${t['_id'] as string}/run`, { formData: 'x' })).status, 400);
});

test('manual runs: unknown is 404, disabled is 400, a trigger of another type is 400', async () => {
  assert.equal((await send('POST', '/triggers/manual/0123456789abcdef01234567/run', { formData: {} })).status, 404);
  const off = await trigger({ name: 'man-off', type: 'manual', enabled: false });
  const res = await send('POST', `/triggers/manual/${off['_id'] as string}/run`, { formData: {} });
  assert.equal(res.status, 400);
  assert.match((res.body as Json)['message'] as string, /is disabled/);
  const ep = await trigger({ name: 'ep-not-manual', type: 'endpoint', routeName: 'not-manual' });
  assert.equal((await send('POST', `/triggers/manual/${ep['_id'] as string}/run`, { formData: {} })).status, 400);
});

test('an automation without a workflow cannot run; running needs a writing role', async () => {
  const bare = data(await send('POST', '/automations', { name: 'No Workflow' }))['_id'];
  const t = data(await send('POST', '/triggers', { name: 'bare', type: 'manual', actionId: bare }));
  const res = await send('POST', `/triggers/manual/${t['_id'] as string}/run`, {});
  assert.equal(res.status, 400);
  assert.match((res.body as Json)['message'] as string, /has no workflow to run/);
  const reader = await makeUser(core, 'om-run-reader', { roles: [role('OperationsManager', 'apiread')] });
  assert.equal((await send('POST', '/triggers/endpoint/provision-device', { device: 'r2' }, reader.token)).status, 403);
});
