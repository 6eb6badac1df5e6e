/**
 * Running automations on the real core: `POST .../:id/run` starts the
 * attached workflow's job now with the form data as variables, and the
 * core's scheduler starts due automations once, then moves or clears their
 * next run.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { makeUser, role } from '../../helpers/users.ts';
import { BASE, createAutomation, jobsOf, quickWorkflow, send, update } from './helpers.ts';
import type { Json } from './helpers.ts';

let core: RunningCore;
before(async () => {
  core = await startCore((await openTestStore()));
});
after(async () => {
  await core.core.automationScheduler.stop();
  await core.core.engine.idle();
  await core.close();
});

test('run starts the attached workflow now, with the form data as job variables', async () => {
  await quickWorkflow(core, 'run-by-name');
  const a = await createAutomation(core, 'Run me');
  await update(core, a['_id'] as string, { workflow: 'run-by-name', formData: { device: 'r1' } });
  const res = await send(core, 'POST', `${BASE}/${a['_id'] as string}/run`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const job = res.body as Json;
  assert.equal(job['name'], 'run-by-name');
  const variables = job['variables'] as Json;
  assert.equal(variables['device'], 'r1');
  assert.equal(variables['initiator'], 'admin', 'started by the caller');
  assert.equal('_rev' in job || '_runs' in job, false, 'engine bookkeeping is not shown');
  const found = await jobsOf(core, 'run-by-name');
  assert.deepEqual(found.map((j) => j._id), [job['_id']]);
  const after = (await send(core, 'GET', `${BASE}/${a['_id'] as string}`)).body as Json;
  assert.equal(after['nextRunAt'], null, 'a run outside the schedule leaves the schedule alone');
});

test('run with a workflow attached by id, and with form data given for this run only', async () => {
  const workflowId = await quickWorkflow(core, 'run-by-id');
  const a = await createAutomation(core, 'Run by id');
  await update(core, a['_id'] as string, { workflowId, formData: { stored: true } });
  const res = await send(core, 'POST', `${BASE}/${a['_id'] as string}/run`, { formData: { given: 1 } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const variables = (res.body as Json)['variables'] as Json;
  assert.deepEqual([variables['given'], variables['stored']], [1, undefined]);
});

test('run without a workflow attached, or with one since deleted, is a 400; an unknown automation a 404', async () => {
  const bare = await createAutomation(core, 'No workflow');
  const res = await send(core, 'POST', `${BASE}/${bare['_id'] as string}/run`);
  assert.equal(res.status, 400);
  assert.match((res.body as Json)['message'] as string, /has no workflow attached/);
  const workflowId = await quickWorkflow(core, 'soon-deleted');
  const gone = await createAutomation(core, 'Workflow gone');
  await update(core, gone['_id'] as string, { workflowId });
  assert.equal((await send(core, 'DELETE', `/automation-studio/automations/${workflowId}`)).status, 200);
  const stale = await send(core, 'POST', `${BASE}/${gone['_id'] as string}/run`);
  assert.equal(stale.status, 400);
  assert.match((stale.body as Json)['message'] as string, /does not exist/);
  assert.equal((await send(core, 'POST', `${BASE}/0123456789abcdef01234567/run`)).status, 404);
  const reader = await makeUser(core, 'run-reader', { roles: [role('AutomationCatalog', 'apiread')] });
  assert.equal((await send(core, 'POST', `${BASE}/${bare['_id'] as string}/run`, undefined, reader.token)).status, 403);
});

test('the scheduler starts a due automation once, as the account that scheduled it, and clears a one-off', async () => {
  await quickWorkflow(core, 'scheduled-once');
  const a = await createAutomation(core, 'Due now');
  const id = a['_id'] as string;
  await update(core, id, { workflow: 'scheduled-once', formData: { from: 'schedule' }, nextRunAt: new Date(Date.now() - 1000).toISOString() });
  assert.equal(await core.core.automationScheduler.tick(), 1);
  assert.equal(await core.core.automationScheduler.tick(), 0, 'a second poll finds nothing due');
  const jobs = await jobsOf(core, 'scheduled-once');
  assert.equal(jobs.length, 1);
  assert.equal(jobs[0]!.variables['from'], 'schedule');
  const admin = await core.core.auth.findAccount('admin');
  assert.equal(jobs[0]!.created_by, admin!['_id']);
  const doc = (await send(core, 'GET', `${BASE}/${id}`)).body as Json;
  assert.equal(doc['nextRunAt'], null);
  assert.equal(doc['lockedAt'], null);
  assert.ok(Date.parse(doc['lastRunAt'] as string) <= Date.parse(doc['lastFinishedAt'] as string));
});

test('a repeating automation moves to its next run; a disabled or future one does not run', async () => {
  await quickWorkflow(core, 'scheduled-repeat');
  const repeat = await createAutomation(core, 'Repeats');
  const due = new Date(Date.now() - 60_000).toISOString();
  await update(core, repeat['_id'] as string, { workflow: 'scheduled-repeat', repeatInterval: '1 hour', nextRunAt: due });
  const off = await createAutomation(core, 'Switched off');
  await update(core, off['_id'] as string, { workflow: 'scheduled-repeat', nextRunAt: due });
  await send(core, 'PUT', `${BASE}/${off['_id'] as string}/schedule`, { disabled: true });
  const future = await createAutomation(core, 'Not yet');
  await update(core, future['_id'] as string, { workflow: 'scheduled-repeat', nextRunAt: new Date(Date.now() + 3_600_000).toISOString() });
  assert.equal(await core.core.automationScheduler.tick(), 1);
  assert.equal((await jobsOf(core, 'scheduled-repeat')).length, 1);
  const doc = (await send(core, 'GET', `${BASE}/${repeat['_id'] as string}`)).body as Json;
  assert.equal(doc['nextRunAt'], new Date(Date.parse(due) + 3_600_000).toISOString());
});

test('a scheduled automation whose workflow is missing records the failure instead of retrying on every poll', async () => {
  const imported = await send(core, 'POST', `${BASE}/import`, { name: 'Broken import', data: { workflow: 'never-created' }, nextRunAt: new Date(Date.now() - 1000).toISOString() });
  assert.equal(imported.status, 200);
  assert.equal(await core.core.automationScheduler.tick(), 1);
  const list = (await send(core, 'GET', `${BASE}?equals=Broken import&equalsField=name`)).body as { results: Json[] };
  const doc = list.results[0]!;
  assert.match(doc['failReason'] as string, /never-created.*does not exist/);
  assert.equal(doc['failCount'], 1);
  assert.equal(doc['nextRunAt'], null);
  assert.equal(await core.core.automationScheduler.tick(), 0);
});
