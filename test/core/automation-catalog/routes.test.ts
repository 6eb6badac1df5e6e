/**
 * Automation catalog over HTTP on the real core: create, get, list, update,
 * schedule and delete with their exact answers and refusals, and the roles
 * that may call them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { makeUser, role } from '../../helpers/users.ts';
import { BASE, createAutomation, quickWorkflow, send, update } from './helpers.ts';
import type { Json } from './helpers.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HOUR = 3_600_000;

let core: RunningCore;
before(async () => {
  core = await startCore((await openTestStore()));
});
after(() => core.close());

test('create answers the new automation in the Agenda shape', async () => {
  const res = await send(core, 'POST', BASE, { name: 'Nightly backup', description: 'Back up every device' });
  assert.equal(res.status, 200);
  const doc = res.body as Json;
  assert.match(doc['_id'] as string, /^[0-9a-f]{24}$/);
  assert.match((doc['data'] as Json)['lastUpdated'] as string, ISO);
  assert.deepEqual(doc, {
    _id: doc['_id'],
    name: 'Nightly backup',
    type: 'normal',
    data: { description: 'Back up every device', gbac: { read: [], write: [] }, lastUpdated: (doc['data'] as Json)['lastUpdated'] },
    nextRunAt: null,
    repeatInterval: null,
    repeatTimezone: null,
    lastRunAt: null,
    lastFinishedAt: null,
    lockedAt: null,
    disabled: false,
    lastModifiedBy: 'admin',
    migratedToOM: false,
    correspondingOMAutomationId: null,
  });
  const got = await send(core, 'GET', `${BASE}/${doc['_id'] as string}`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, doc);
});

test('create refuses a taken name (400, code CONFLICT), a missing field and an unknown one', async () => {
  await createAutomation(core, 'Taken');
  const dup = await send(core, 'POST', BASE, { name: 'Taken', description: 'again' });
  assert.equal(dup.status, 400);
  assert.equal((dup.body as Json)['code'], 'CONFLICT');
  assert.match((dup.body as Json)['message'] as string, /Automation with given name already exists/);
  const cases: Array<[unknown, RegExp]> = [
    [{ name: 'No description' }, /description is required/],
    [{ description: 'no name' }, /name is required/],
    [{ name: '', description: 'x' }, /name is not allowed to be empty/],
    [{ name: 'Extra', description: 'x', workflow: 'w' }, /workflow is not allowed/],
  ];
  for (const [body, message] of cases) {
    const res = await send(core, 'POST', BASE, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match((res.body as Json)['message'] as string, message);
  }
  assert.equal((await send(core, 'POST', BASE, { name: 'Empty description', description: '' })).status, 200, 'an empty description is a description');
});

test('get answers 404 for an unknown id and 400 for a malformed one', async () => {
  const missing = await send(core, 'GET', `${BASE}/0123456789abcdef01234567`);
  assert.equal(missing.status, 404);
  assert.equal((missing.body as Json)['code'], 'NOT_FOUND');
  assert.equal((await send(core, 'GET', `${BASE}/not-an-id`)).status, 400);
});

test('list answers {results, total} in name order, whole by default, with paging and filters', async () => {
  const fresh = await startCore((await openTestStore()));
  try {
    for (const name of ['delta', 'Alpha', 'charlie', 'bravo']) await createAutomation(fresh, name);
    const all = await send(fresh, 'GET', BASE);
    assert.equal(all.status, 200);
    const body = all.body as { results: Json[]; total: number };
    assert.equal(body.total, 4);
    assert.deepEqual(body.results.map((r) => r['name']), ['Alpha', 'bravo', 'charlie', 'delta']);
    assert.equal(body.results.every((r) => !('_rev' in r)), true, 'the revision counter is not shown');
    const page = (await send(fresh, 'GET', `${BASE}?limit=2&skip=1`)).body as { results: Json[]; total: number };
    assert.deepEqual(page.results.map((r) => r['name']), ['bravo', 'charlie']);
    assert.equal(page.total, 4);
    const desc = (await send(fresh, 'GET', `${BASE}?sort=name&order=-1&limit=1`)).body as { results: Json[] };
    assert.deepEqual(desc.results.map((r) => r['name']), ['delta']);
    const filtered = (await send(fresh, 'GET', `${BASE}?equals=bravo&equalsField=name`)).body as { results: Json[]; total: number };
    assert.deepEqual([filtered.total, filtered.results[0]?.['name']], [1, 'bravo']);
    assert.equal((await send(fresh, 'GET', `${BASE}?sort=lastRunAt`)).status, 400, 'only indexed fields sort');
  } finally {
    await fresh.close();
  }
});

test('update attaches a workflow by name or by id, with form, gbac and form data', async () => {
  const a = await createAutomation(core, 'Update me');
  const workflowId = await quickWorkflow(core, 'update-target');
  const byName = await update(core, a['_id'] as string, { workflow: 'update-target', formId: '5f0c1a2b3c4d5e6f7a8b9c0d', gbac: { read: ['g1'], write: ['g2'] }, formData: { device: 'r1' } });
  const data = byName['data'] as Json;
  assert.deepEqual({ ...data, lastUpdated: 'x' }, { description: 'Update me (test)', workflow: 'update-target', formId: '5f0c1a2b3c4d5e6f7a8b9c0d', gbac: { read: ['g1'], write: ['g2'] }, formData: { device: 'r1' }, lastUpdated: 'x' });
  const byId = await update(core, a['_id'] as string, { workflowId });
  assert.equal((byId['data'] as Json)['workflowId'], workflowId);
  assert.equal((byId['data'] as Json)['workflow'], undefined, 'naming the workflow by id replaces the name');
  const cleared = await update(core, a['_id'] as string, { workflowId: null, formData: null });
  assert.deepEqual(Object.keys(cleared['data'] as Json).sort(), ['description', 'formId', 'gbac', 'lastUpdated']);
});

test('update refuses gbac with one list, both workflow forms, unknown workflows, bad schedules and unknown options', async () => {
  const a = await createAutomation(core, 'Refusals');
  const id = a['_id'] as string;
  const cases: Array<[Json, RegExp]> = [
    [{ gbac: { read: ['g1'] } }, /gbac.write is required/],
    [{ workflow: 'x', workflowId: 'y' }, /workflow.*workflowId|conflict with exclusive peers/],
    [{ workflow: 'no-such-workflow' }, /No workflow no-such-workflow exists/],
    [{ workflowId: '00000000-0000-4000-8000-000000000000' }, /No workflow/],
    [{ repeatInterval: 'whenever' }, /neither a human interval .* nor a cron expression/],
    [{ repeatInterval: '61 * * * *' }, /minute/],
    [{ repeatInterval: '0 9 * * *', repeatTimezone: 'Mars/Base' }, /not a known IANA timezone/],
    [{ nextRunAt: 'tomorrow' }, /ISO 8601/],
    [{ name: 'renamed' }, /name is not allowed/],
    [{}, /must have at least 1 key/],
  ];
  for (const [options, message] of cases) {
    const res = await send(core, 'PUT', `${BASE}/${id}`, { options });
    assert.equal(res.status, 400, JSON.stringify(options));
    assert.match((res.body as Json)['message'] as string, message, JSON.stringify(options));
  }
  const after = (await send(core, 'GET', `${BASE}/${id}`)).body as Json;
  assert.deepEqual(after, a, 'nothing was changed by a refused update');
  assert.equal((await send(core, 'PUT', `${BASE}/0123456789abcdef01234567`, { options: { formId: 'f' } })).status, 404);
});

test('a repeat interval without nextRunAt schedules the first run one interval (or the next cron match) from now', async () => {
  const a = await createAutomation(core, 'Repeat');
  const id = a['_id'] as string;
  const before = Date.now();
  const daily = await update(core, id, { repeatInterval: '1 day' });
  const next = Date.parse(daily['nextRunAt'] as string);
  assert.ok(next >= before + 24 * HOUR && next <= Date.now() + 24 * HOUR, daily['nextRunAt'] as string);
  const cron = await update(core, id, { repeatInterval: '0 9 * * 1-5', repeatTimezone: 'Europe/Berlin' });
  const at = new Date(cron['nextRunAt'] as string);
  const berlin = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', weekday: 'short' }).format(at);
  assert.match(berlin, /^(Mon|Tue|Wed|Thu|Fri) 09:00$/);
  assert.equal(cron['repeatTimezone'], 'Europe/Berlin');
  const explicit = await update(core, id, { repeatInterval: '30 minutes', nextRunAt: '2030-01-01T10:00:00+02:00' });
  assert.equal(explicit['nextRunAt'], '2030-01-01T08:00:00.000Z', 'an explicit nextRunAt wins and is stored in UTC');
});

test('schedule changes only schedule properties, given bare or under options', async () => {
  const a = await createAutomation(core, 'Schedule only');
  const id = a['_id'] as string;
  const res = await send(core, 'PUT', `${BASE}/${id}/schedule`, { nextRunAt: '2031-05-01T00:00:00Z', repeatInterval: '1 hour', disabled: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const doc = res.body as Json;
  assert.deepEqual([doc['nextRunAt'], doc['repeatInterval'], doc['repeatTimezone'], doc['disabled']], ['2031-05-01T00:00:00.000Z', '1 hour', null, true]);
  const wrapped = await send(core, 'PUT', `${BASE}/${id}/schedule`, { options: { disabled: false, repeatInterval: null } });
  assert.equal(wrapped.status, 200);
  assert.deepEqual([(wrapped.body as Json)['disabled'], (wrapped.body as Json)['repeatInterval'], (wrapped.body as Json)['nextRunAt']], [false, null, '2031-05-01T00:00:00.000Z']);
  for (const body of [{ workflow: 'x' }, { formData: {} }, {}, { repeatInterval: 'sometimes' }, { disabled: 'yes' }]) {
    const refused = await send(core, 'PUT', `${BASE}/${id}/schedule`, body);
    assert.equal(refused.status, 400, JSON.stringify(body));
  }
});

test('delete takes an array of ids (or {ids}) and answers which were deleted and which were not found', async () => {
  const a = await createAutomation(core, 'Delete A');
  const b = await createAutomation(core, 'Delete B');
  const unknown = '0123456789abcdef01234567';
  const res = await send(core, 'DELETE', BASE, [a['_id'], unknown]);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, { deleted: [a['_id']], notFound: [unknown] });
  assert.equal((await send(core, 'GET', `${BASE}/${a['_id'] as string}`)).status, 404);
  const wrapped = await send(core, 'DELETE', BASE, { ids: [b['_id']] });
  assert.deepEqual(wrapped.body, { deleted: [b['_id']], notFound: [] });
  for (const body of [undefined, [], ['nope'], { ids: 'x' }]) {
    assert.equal((await send(core, 'DELETE', BASE, body)).status, 400, JSON.stringify(body));
  }
  const bad = await core.request(BASE, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: '[1,' });
  assert.equal(bad.status, 400);
  assert.equal((bad.body as Json)['code'], 'INVALID_JSON');
});

test('readers may list and get but not write; callers without a catalog role may not read', async () => {
  const reader = await makeUser(core, 'catalog-reader', { roles: [role('AutomationCatalog', 'apiread')] });
  const writer = await makeUser(core, 'catalog-writer', { roles: [role('AutomationCatalog', 'operations')] });
  const outsider = await makeUser(core, 'catalog-outsider');
  const a = await createAutomation(core, 'Guarded');
  assert.equal((await send(core, 'GET', BASE, undefined, reader.token)).status, 200);
  assert.equal((await send(core, 'GET', `${BASE}/${a['_id'] as string}`, undefined, reader.token)).status, 200);
  assert.equal((await send(core, 'POST', BASE, { name: 'by reader', description: '' }, reader.token)).status, 403);
  assert.equal((await send(core, 'PUT', `${BASE}/${a['_id'] as string}/schedule`, { disabled: true }, reader.token)).status, 403);
  assert.equal((await send(core, 'POST', BASE, { name: 'by writer', description: '' }, writer.token)).status, 200);
  const made = (await send(core, 'GET', `${BASE}?equals=by writer&equalsField=name`)).body as { results: Json[] };
  assert.equal(made.results[0]?.['lastModifiedBy'], 'catalog-writer');
  assert.equal((await send(core, 'GET', BASE, undefined, outsider.token)).status, 403);
  assert.equal((await send(core, 'GET', BASE, undefined, null)).status, 401);
});
