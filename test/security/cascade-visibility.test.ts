/**
 * Cascades respect visibility (issue 26, finding 4): cancelling a parent job
 * one may see cancels only the descendants one may see too. A child hidden
 * from the caller (its groups exclude them) keeps running, untouched; a
 * visible child is cancelled with its parent. Pause and resume act on the
 * named jobs only, so they never reach a hidden child either.
 *
 * A child inherits its parent's groups; the parent's groups are then changed
 * by an administrator, which is how a visible parent comes to have a hidden
 * child.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/wait.ts';
import { account, chain, makeGroup, manualTask, send, startedId, startRelayFixture } from './authority-fixture.ts';
import type { Account, Json, RelayFixture } from './authority-fixture.ts';

let f: RelayFixture;
let operator: Account;
let operatorsGroup: string;
let hiddenGroup: string;

const childJobTask = (workflow: string): Json => ({
  name: 'childJob',
  app: 'WorkFlowEngine',
  type: 'automatic',
  variables: { incoming: { task: '', workflow, variables: {}, data_array: '', transformation: '', loopType: '' }, outgoing: { job_details: null } },
});

before(async () => {
  f = await startRelayFixture();
  operatorsGroup = await makeGroup(f.core, 'operators');
  hiddenGroup = await makeGroup(f.core, 'secret team');
  operator = await account(f.core, 'group-operator', [['OperationsManager', 'operations']], [operatorsGroup]);
  const save = async (wf: Json) => assert.equal((await send(f.core, 'POST', '/automation-studio/automations', { automation: wf })).status, 200);
  await save(chain('waiting child', { a1: manualTask() }));
  await save(chain('parent of a waiting child', { b2: childJobTask('waiting child') }));
});
after(() => f.close());

/**
 * A job as stored, read without waiting for the engine: while a child waits
 * at its manual task its parent's childJob task is in flight, so `idle()`
 * would wait for the child. Every control action commits before it answers.
 */
async function readJob(id: string): Promise<Json> {
  const doc = await f.core.store.collection('jobs').findById(id);
  assert.ok(doc, `job ${id} is stored`);
  return doc;
}

/** The administrator's parent job started with `groups`, and its child, waiting at a manual task. */
async function parentAndChild(groups: string[]): Promise<{ parent: string; child: string }> {
  const parent = startedId(await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'parent of a waiting child', options: { groups } }));
  // The child starts some turns later, after commits of its own; idle() cannot say so (its parent's task waits
  // for it), so its stored document, waiting at its manual task, is the condition.
  const child = await eventually(async () => {
    const found = await f.core.store.collection('jobs').search({ where: null, sort: [], skip: 0, limit: 1000 });
    const doc = found.docs.find((d) => Array.isArray(d['ancestors']) && (d['ancestors'] as string[]).includes(parent) && d['_id'] !== parent);
    return doc && (doc['tasks'] as Record<string, { status: string }>)['a1']?.status === 'running' ? String(doc['_id']) : null;
  }, { what: 'the child job waiting at its manual task' });
  return { parent, child };
}

/** Lets a waiting child end, so nothing is left in flight. */
async function finishChild(child: string): Promise<void> {
  const res = await send(f.core, 'POST', `/operations-manager/jobs/${child}/tasks/a1/finish`, { finish_state: 'success', variables: {} });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await f.core.core.engine.idle();
}

const cancel = (ids: string[]) => send(f.core, 'POST', '/operations-manager/jobs/cancel', { jobIds: ids }, operator.token);
const visibleTo = async (id: string): Promise<number> => (await send(f.core, 'GET', `/operations-manager/jobs/${id}`, undefined, operator.token)).status;

test('finding 4: cancelling a visible parent leaves its hidden child running and untouched', async () => {
  const { parent, child } = await parentAndChild([hiddenGroup]);
  // The administrator shows the parent to the operators; the child keeps the secret team's groups.
  assert.equal((await send(f.core, 'PUT', `/operations-manager/jobs/${parent}/groups`, { groups: [operatorsGroup] })).status, 200);
  assert.equal(await visibleTo(parent), 200);
  assert.equal(await visibleTo(child), 404);
  const before = await readJob(child);

  const res = await cancel([parent]);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal((await readJob(parent))['status'], 'canceled');
  const after = await readJob(child);
  assert.equal(after['status'], 'running', 'the hidden child keeps running');
  assert.equal(after['last_updated_by'], before['last_updated_by'], 'and was not touched in the operator\'s name');
  assert.equal(after['_rev'], before['_rev']);
  // Its owner can still finish it.
  await finishChild(child);
  assert.equal((await readJob(child))['status'], 'complete');
});

test('cancelling a visible parent cancels its visible child in the same call', async () => {
  const { parent, child } = await parentAndChild([operatorsGroup]);
  assert.equal(await visibleTo(child), 200);
  assert.equal((await cancel([parent])).status, 200);
  assert.equal((await readJob(parent))['status'], 'canceled');
  const after = await readJob(child);
  assert.equal(after['status'], 'canceled');
  assert.equal(after['last_updated_by'], operator.id);
  await f.core.core.engine.idle();
});

test('pausing and resuming a visible parent never reaches its hidden child', async () => {
  const { parent, child } = await parentAndChild([hiddenGroup]);
  assert.equal((await send(f.core, 'PUT', `/operations-manager/jobs/${parent}/groups`, { groups: [operatorsGroup] })).status, 200);
  const before = await readJob(child);
  for (const action of ['pause', 'resume']) {
    const res = await send(f.core, 'POST', `/operations-manager/jobs/${action}`, { jobIds: [parent] }, operator.token);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
  const after = await readJob(child);
  assert.equal(after['status'], 'running');
  assert.equal(after['_rev'], before['_rev']);
  // Naming the hidden child itself is refused as not found, and changes nothing.
  const named = await cancel([child]);
  assert.equal(named.status, 400);
  assert.equal((await readJob(child))['status'], 'running');
  await finishChild(child);
});
