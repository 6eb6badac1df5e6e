/**
 * Operations-manager triggers over HTTP on the real core: the three types
 * with their fields and defaults, validation, list filters (generic ones,
 * enabled=, actionId=), changes, deletion one by one and by automation,
 * export and import.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../../helpers/stores.ts';
import { startCore } from '../../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../../helpers/core.ts';

type Json = Record<string, unknown>;
const HOUR = 3_600_000;

let core: RunningCore;
let automationId = '';
let otherAutomationId = '';

const send = (method: string, path: string, body?: unknown): Promise<JsonResponse> =>
  core.request(`/operations-manager${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
const data = (res: JsonResponse): Json => (res.body as { data: Json }).data;
const names = (res: JsonResponse): string[] => (res.body as { data: Json[] }).data.map((t) => t['name'] as string);
const errors = (res: JsonResponse): string[] => (res.body as { metadata: { errors?: Json[] } }).metadata.errors?.map((e) => e['parameter'] as string) ?? [];

async function create(body: Json): Promise<Json> {
  const res = await send('POST', '/triggers', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return data(res);
}

/** The trigger without the fields every trigger has whatever its type. */
function typed(t: Json): Json {
  const { _id, name, description, enabled, actionType, actionId, created, createdBy, lastUpdated, lastUpdatedBy, ...rest } = t;
  return rest;
}

before(async () => {
  core = await startCore((await openTestStore()));
  automationId = data(await send('POST', '/automations', { name: 'Trigger Owner' }))['_id'] as string;
  otherAutomationId = data(await send('POST', '/automations', { name: 'Other Owner' }))['_id'] as string;
});
after(() => core.close());

test('each type is created with its fields and defaults, in the envelope', async () => {
  const res = await send('POST', '/triggers', { name: 'ep', type: 'endpoint', actionId: automationId, routeName: 'ep-route', schema: { type: 'object' } });
  assert.equal((res.body as Json)['message'], 'Successfully created trigger');
  const ep = data(res);
  assert.deepEqual([ep['name'], ep['description'], ep['enabled'], ep['actionType'], ep['actionId']], ['ep', '', true, 'automations', automationId]);
  assert.deepEqual(typed(ep), { type: 'endpoint', routeName: 'ep-route', verb: 'POST', schema: { type: 'object' } });
  assert.deepEqual(typed(await create({ name: 'man', type: 'manual', actionId: automationId })), { type: 'manual', formId: null, legacyWrapper: false });
  const first = Date.now() + 2 * HOUR;
  assert.deepEqual(typed(await create({ name: 'sch', type: 'schedule', actionId: automationId, firstRunAt: first, repeatInterval: HOUR, processMissedRuns: 'last' })), {
    type: 'schedule', firstRunAt: first, repeatInterval: HOUR, processMissedRuns: 'last', nextRunAt: first, lastRunAt: null,
  });
  const iso = await create({ name: 'sch-iso', type: 'schedule', actionId: automationId, firstRunAt: '2099-01-01T00:00:00Z', enabled: false });
  assert.deepEqual([iso['firstRunAt'], iso['nextRunAt'], iso['repeatInterval'], iso['processMissedRuns']], [Date.parse('2099-01-01T00:00:00Z'), null, null, 'none'], 'disabled: no next run');
  assert.deepEqual(data(await send('GET', `/triggers/${ep['_id'] as string}`)), ep);
});

test('a schedule created in the past plans its next window from firstRunAt, keeping the phase', async () => {
  const first = Date.now() - 10 * HOUR - 5 * 60_000;
  const t = await create({ name: 'phase', type: 'schedule', actionId: automationId, firstRunAt: first, repeatInterval: HOUR });
  assert.equal(t['nextRunAt'], first + 11 * HOUR);
});

test('invalid triggers are refused naming the field', async () => {
  const bad = async (body: Json): Promise<string[]> => {
    const res = await send('POST', '/triggers', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal((res.body as Json)['data'], null);
    return errors(res);
  };
  assert.deepEqual(await bad({ name: 'x', type: 'eventSystem', actionId: automationId }), ['body.type']);
  assert.deepEqual(await bad({ name: 'x', type: 'endpoint', actionId: automationId }), ['body.routeName']);
  assert.deepEqual(await bad({ name: 'x', type: 'endpoint', actionId: automationId, routeName: 'a/b' }), ['body.routeName']);
  assert.deepEqual(await bad({ name: 'x', type: 'endpoint', actionId: automationId, routeName: 'r', verb: 'GET' }), ['body.verb']);
  assert.deepEqual(await bad({ name: 'x', type: 'endpoint', actionId: automationId, routeName: 'r', schema: { type: 'nonsense' } }), ['body.schema']);
  assert.deepEqual(await bad({ name: 'x', type: 'schedule', actionId: automationId }), ['body.firstRunAt']);
  assert.deepEqual(await bad({ name: 'x', type: 'schedule', actionId: automationId, firstRunAt: 1, repeatInterval: 5 }), ['body.repeatInterval']);
  assert.deepEqual(await bad({ name: 'x', type: 'schedule', actionId: automationId, firstRunAt: 1, processMissedRuns: 'all' }), ['body.processMissedRuns']);
  assert.deepEqual(await bad({ name: 'x', type: 'manual', actionId: automationId, routeName: 'r' }), ['body.routeName'], 'fields of another type');
  assert.deepEqual(await bad({ name: 'x', type: 'manual', actionId: '0123456789abcdef01234567' }), ['body.actionId'], 'the automation must exist');
  assert.deepEqual(await bad({ type: 'manual', actionId: automationId }), ['body.name']);
});

test('one enabled endpoint trigger per route name', async () => {
  await create({ name: 'route-1', type: 'endpoint', actionId: automationId, routeName: 'shared-route' });
  const dup = await send('POST', '/triggers', { name: 'route-2', type: 'endpoint', actionId: otherAutomationId, routeName: 'shared-route' });
  assert.equal(dup.status, 409);
  const off = await create({ name: 'route-3', type: 'endpoint', actionId: otherAutomationId, routeName: 'shared-route', enabled: false });
  assert.equal((await send('PATCH', `/triggers/${off['_id'] as string}`, { enabled: true })).status, 409);
});

test('the list filters with the generic filters, enabled= and actionId=, and refuses bracket syntax', async () => {
  const mk = (name: string, actionId: string, enabled: boolean) => create({ name, type: 'manual', actionId, enabled });
  await mk('lst-a', otherAutomationId, true);
  await mk('lst-b', otherAutomationId, false);
  await mk('lst-c', automationId, false);
  const page = await send('GET', '/triggers?startsWith=lst-&startsWithField=name');
  assert.equal((page.body as Json)['message'], 'Successfully retrieved triggers');
  assert.deepEqual(names(page), ['lst-a', 'lst-b', 'lst-c']);
  assert.equal(((page.body as Json)['metadata'] as Json)['total'], 3);
  assert.deepEqual(names(await send('GET', '/triggers?startsWith=lst-&startsWithField=name&enabled=false')), ['lst-b', 'lst-c']);
  assert.deepEqual(names(await send('GET', `/triggers?startsWith=lst-&startsWithField=name&actionId=${otherAutomationId}`)), ['lst-a', 'lst-b']);
  assert.deepEqual(names(await send('GET', `/triggers?actionId=${otherAutomationId}&enabled=true&equals=manual&equalsField=type`)), ['lst-a']);
  assert.deepEqual(names(await send('GET', '/triggers?contains=st-b&containsField=name')), ['lst-b']);
  assert.deepEqual(names(await send('GET', '/triggers?startsWith=lst-&startsWithField=name&sort=name&order=-1&limit=1')), ['lst-c']);
  const bracket = await send('GET', '/triggers?equals[enabled]=true');
  assert.equal(bracket.status, 400);
  assert.match((bracket.body as Json)['message'] as string, /these lists use the generic filters/);
  assert.deepEqual(errors(await send('GET', '/triggers?enabled=maybe')), ['enabled']);
  assert.deepEqual(errors(await send('GET', '/triggers?actionId=nope')), ['actionId']);
});

test('PATCH changes fields of the trigger\'s type, re-plans a schedule, and never changes the type', async () => {
  const t = await create({ name: 'patch-sch', type: 'schedule', actionId: automationId, firstRunAt: Date.now() + HOUR, enabled: false });
  assert.equal(t['nextRunAt'], null);
  const first = Date.now() + 3 * HOUR;
  const res = await send('PATCH', `/triggers/${t['_id'] as string}`, { enabled: true, firstRunAt: first, description: 'on' });
  assert.equal((res.body as Json)['message'], 'Successfully updated trigger');
  assert.deepEqual([data(res)['enabled'], data(res)['nextRunAt'], data(res)['description']], [true, first, 'on']);
  assert.notEqual(data(res)['lastUpdated'], undefined);
  assert.deepEqual(errors(await send('PATCH', `/triggers/${t['_id'] as string}`, { type: 'manual' })), ['body.type']);
  assert.deepEqual(errors(await send('PATCH', `/triggers/${t['_id'] as string}`, { routeName: 'r' })), ['body.routeName']);
  assert.deepEqual(errors(await send('PATCH', `/triggers/${t['_id'] as string}`, { nextRunAt: 5 })), ['body.nextRunAt'], 'nextRunAt is computed');
  assert.equal((await send('PATCH', '/triggers/0123456789abcdef01234567', { enabled: true })).status, 404);
});

test('delete one, delete by automation, export and import', async () => {
  const owner = data(await send('POST', '/automations', { name: 'Bulk Owner' }))['_id'] as string;
  const t1 = await create({ name: 'bulk-1', type: 'manual', actionId: owner, formId: 'form-1' });
  await create({ name: 'bulk-2', type: 'endpoint', actionId: owner, routeName: 'bulk-route' });
  const exported = await send('GET', `/triggers/${t1['_id'] as string}/export`);
  assert.equal((exported.body as Json)['message'], 'Successfully exported trigger');
  const one = await send('DELETE', `/triggers/${t1['_id'] as string}`);
  assert.deepEqual(one.body, { message: 'Successfully deleted trigger', data: null, metadata: {} });
  assert.equal((await send('GET', `/triggers/${t1['_id'] as string}`)).status, 404);
  assert.equal((await send('DELETE', `/triggers/${t1['_id'] as string}`)).status, 404);
  const imported = await send('PUT', '/triggers', { triggers: [data(exported), { name: 'no type', actionId: owner }] });
  assert.equal((imported.body as Json)['message'], 'Successfully imported 1 of 2 documents');
  assert.deepEqual(((imported.body as Json)['metadata'] as { failures: Json[] }).failures.map((f) => f['parameter']), ['triggers[1]']);
  assert.deepEqual(typed(data(await send('GET', `/triggers/${t1['_id'] as string}`))), typed(data(exported)));
  const all = await send('DELETE', `/triggers/action/${owner}`);
  assert.deepEqual(all.body, { message: 'Successfully deleted 2 triggers', data: null, metadata: { deleted: 2 } });
  assert.deepEqual(names(await send('GET', `/triggers?actionId=${owner}`)), []);
  assert.equal(data(await send('GET', `/automations/${owner}`))['name'], 'Bulk Owner', 'the automation stays');
});
