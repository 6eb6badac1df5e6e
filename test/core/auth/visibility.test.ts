/**
 * Jobs and tasks with groups are visible only to members of one of those
 * groups (directly or through a group of groups) and to operations-manager
 * admins (docs/decisions.md D15), whichever route is tried.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { GROUP_ENG, GROUP_OPS, jobId, jobs, label, taskId, tasks } from '../../fixtures/search-data.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { makeGroup, makeUser, role } from '../../helpers/users.ts';
import type { TestUser } from '../../helpers/users.ts';

let core: RunningCore;
let opsMember: TestUser;
let inherited: TestUser;
let outsider: TestUser;
let omAdmin: TestUser;

before(async () => {
  const store = await openTestStore();
  await store.collection('jobs').insertMany(jobs);
  await store.collection('tasks').insertMany(tasks);
  core = await startCore(store);
  const read = role('OperationsManager', 'apiread');
  await makeGroup(core, 'operations', { id: GROUP_OPS });
  await makeGroup(core, 'engineering', { id: GROUP_ENG });
  const nested = await makeGroup(core, 'noc-east', { memberOf: [GROUP_OPS] });
  opsMember = await makeUser(core, 'ops-member', { roles: [read], groups: [GROUP_OPS] });
  inherited = await makeUser(core, 'noc-member', { roles: [read], groups: [nested] });
  outsider = await makeUser(core, 'outsider', { roles: [read] });
  omAdmin = await makeUser(core, 'om-admin', { roles: [role('OperationsManager', 'admin')] });
});
after(() => core.close());

const jobLabels = async (user: TestUser, query = ''): Promise<{ labels: string[]; total: number }> => {
  const res = await core.request(`/operations-manager/jobs?${query}`, { token: user.token });
  assert.equal(res.status, 200);
  const body = res.body as { data: Array<{ _id: string }>; metadata: { total: number } };
  return { labels: body.data.map((d) => label(d._id)), total: body.metadata.total };
};

test('a member of a group sees the jobs without groups and the jobs of that group', async () => {
  // J1 and J4 carry GROUP_OPS; J3 only GROUP_ENG; J2, J5 and J6 have none.
  assert.deepEqual(await jobLabels(opsMember), { labels: ['J5', 'J1', 'J2', 'J4', 'J6'], total: 5 });
});

test('membership through a group of groups counts', async () => {
  assert.deepEqual(await jobLabels(inherited), { labels: ['J5', 'J1', 'J2', 'J4', 'J6'], total: 5 });
});

test('a caller in no group sees only the jobs without groups, even when searching for the others', async () => {
  assert.deepEqual(await jobLabels(outsider), { labels: ['J5', 'J2', 'J6'], total: 3 });
  assert.deepEqual(await jobLabels(outsider, `equals[_id]=${jobId(3)}`), { labels: [], total: 0 });
  assert.deepEqual(await jobLabels(outsider, 'contains[description]=upgrade'), { labels: [], total: 0 });
});

test('an operations-manager admin sees every job', async () => {
  assert.equal((await jobLabels(omAdmin)).total, jobs.length);
});

test('reading a job or task of another group answers 404, as if it did not exist', async () => {
  for (const path of [`/operations-manager/jobs/${jobId(3)}`, `/operations-manager/job/${jobId(3)}`, `/operations-manager/tasks/${taskId(4)}`]) {
    const res = await core.request(path, { token: opsMember.token });
    assert.equal(res.status, 404, path);
  }
  assert.equal((await core.request(`/operations-manager/jobs/${jobId(1)}`, { token: opsMember.token })).status, 200);
  assert.equal((await core.request(`/operations-manager/jobs/${jobId(3)}`, { token: omAdmin.token })).status, 200);
});

test('task searches apply the same rule', async () => {
  const res = await core.request('/operations-manager/tasks', { token: outsider.token });
  const ids = (res.body as { data: Array<{ _id: string }> }).data.map((d) => label(d._id)).sort();
  // T2 and T3 belong to J2, which has no groups; the others carry a group.
  assert.deepEqual(ids, ['T2', 'T3']);
});
