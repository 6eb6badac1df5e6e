/**
 * Group access on automations (`data.gbac`), on every route that names one:
 * read groups see, list, export and run; write groups also change, schedule
 * and delete; everyone else is answered as if it did not exist; catalog
 * admins see and change everything. Each route is tried by a read member, a
 * write member, a non-member and an admin, all holding a role that allows
 * the route, so only the groups decide.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { makeGroup, makeUser, role } from '../../helpers/users.ts';
import type { TestUser } from '../../helpers/users.ts';
import { BASE, createAutomation, quickWorkflow, send, update } from './helpers.ts';
import type { Json } from './helpers.ts';

let core: RunningCore;
let reader: TestUser;
let nestedReader: TestUser;
let writer: TestUser;
let outsider: TestUser;
let catalogAdmin: TestUser;
let readGroup: string;
let writeGroup: string;
let guarded: string;
let open: string;
let n = 0;

before(async () => {
  core = await startCore((await openTestStore()));
  await quickWorkflow(core, 'gbac-flow');
  readGroup = await makeGroup(core, 'automation readers');
  writeGroup = await makeGroup(core, 'automation writers');
  const inner = await makeGroup(core, 'readers inside readers', { memberOf: [readGroup] });
  const otherGroup = await makeGroup(core, 'someone else');
  // One role for everyone that allows every catalog route: only the groups differ.
  const operations = [role('AutomationCatalog', 'operations')];
  reader = await makeUser(core, 'gbac-reader', { roles: operations, groups: [readGroup] });
  nestedReader = await makeUser(core, 'gbac-nested-reader', { roles: operations, groups: [inner] });
  writer = await makeUser(core, 'gbac-writer', { roles: operations, groups: [writeGroup] });
  outsider = await makeUser(core, 'gbac-outsider', { roles: operations, groups: [otherGroup] });
  catalogAdmin = await makeUser(core, 'gbac-catalog-admin', { roles: [role('AutomationCatalog', 'admin')] });
});
after(() => core.close());

beforeEach(async () => {
  n += 1;
  guarded = (await createAutomation(core, `guarded ${n}`))['_id'] as string;
  await update(core, guarded, { workflow: 'gbac-flow', gbac: { read: [readGroup], write: [writeGroup] } });
  open = (await createAutomation(core, `open ${n}`))['_id'] as string;
  await update(core, open, { workflow: 'gbac-flow' });
});

function names(body: unknown): string[] {
  return ((body as { results: Json[] }).results ?? []).map((a) => a['name'] as string);
}

test('list: a non-member sees only automations without read groups, and total counts only those', async () => {
  const all = await send(core, 'GET', `${BASE}?startsWith=${encodeURIComponent(`guarded ${n}`)}&startsWithField=name`, undefined, outsider.token);
  assert.deepEqual(all.body, { results: [], total: 0 });
  const byOutsider = await send(core, 'GET', BASE, undefined, outsider.token);
  assert.ok(!names(byOutsider.body).some((name) => name.startsWith('guarded')), JSON.stringify(byOutsider.body));
  assert.ok(names(byOutsider.body).includes(`open ${n}`));
  assert.equal((byOutsider.body as { total: number }).total, names(byOutsider.body).length);
  for (const who of [reader, nestedReader, writer, catalogAdmin]) {
    const res = await send(core, 'GET', BASE, undefined, who.token);
    assert.ok(names(res.body).includes(`guarded ${n}`) && names(res.body).includes(`open ${n}`), JSON.stringify(res.body));
  }
  assert.ok(names((await send(core, 'GET', BASE)).body).includes(`guarded ${n}`), 'the administrator sees it');
});

test('get and export: 404 for a non-member, exactly as for an unknown id; 200 for read and write members and admins', async () => {
  for (const path of [`${BASE}/${guarded}`, `${BASE}/${guarded}/export`]) {
    const hidden = await send(core, 'GET', path, undefined, outsider.token);
    assert.equal(hidden.status, 404, path);
    assert.deepEqual(hidden.body, { message: `Automation ${guarded} was not found`, code: 'NOT_FOUND', details: [] });
    for (const who of [reader, nestedReader, writer, catalogAdmin]) assert.equal((await send(core, 'GET', path, undefined, who.token)).status, 200, path);
  }
  assert.equal((await send(core, 'GET', `${BASE}/${open}`, undefined, outsider.token)).status, 200, 'an automation without groups is open to every role holder');
});

async function jobCount(): Promise<number> {
  const res = await core.request('/operations-manager/jobs?equals[name]=gbac-flow&limit=0');
  return (res.body as { metadata: { total: number } }).metadata.total;
}

test('run: read members, write members and admins may run it; a non-member gets 404 and no job starts', async () => {
  const before = await jobCount();
  const hidden = await send(core, 'POST', `${BASE}/${guarded}/run`, {}, outsider.token);
  assert.equal(hidden.status, 404, JSON.stringify(hidden.body));
  assert.equal(await jobCount(), before);
  for (const who of [reader, writer, catalogAdmin]) {
    const res = await send(core, 'POST', `${BASE}/${guarded}/run`, {}, who.token);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((res.body as Json)['name'], 'gbac-flow');
  }
  assert.equal(await jobCount(), before + 3);
});

test('update and schedule: write members and admins may; a read member gets 403, a non-member 404; nothing changes when refused', async () => {
  const attempts: Array<[string, string, unknown]> = [
    ['PUT', `${BASE}/${guarded}`, { options: { formData: { by: 'someone' } } }],
    ['PUT', `${BASE}/${guarded}/schedule`, { disabled: true }],
  ];
  for (const [method, path, body] of attempts) {
    assert.equal((await send(core, method, path, body, outsider.token)).status, 404, path);
    const refused = await send(core, method, path, body, reader.token);
    assert.equal(refused.status, 403, path);
    assert.equal((refused.body as { code: string }).code, 'FORBIDDEN');
    assert.match((refused.body as { message: string }).message, /write groups/);
  }
  const stored = (await send(core, 'GET', `${BASE}/${guarded}`)).body as Json;
  assert.equal((stored['data'] as Json)['formData'], undefined);
  assert.equal(stored['disabled'], false);
  for (const who of [writer, catalogAdmin]) {
    for (const [method, path, body] of attempts) assert.equal((await send(core, method, path, body, who.token)).status, 200, `${path} by ${who.id}`);
  }
  assert.equal(((await send(core, 'GET', `${BASE}/${guarded}`)).body as Json)['disabled'], true);
});

test('update cannot be used to reach a hidden automation: its options are not even checked', async () => {
  const res = await send(core, 'PUT', `${BASE}/${guarded}`, { options: { workflow: 'no such workflow' } }, outsider.token);
  assert.equal(res.status, 404, JSON.stringify(res.body));
});

test('delete: a non-member\'s ids are not found; a read member is refused with 403 and nothing is deleted; a write member deletes', async () => {
  const byOutsider = await send(core, 'DELETE', BASE, [guarded], outsider.token);
  assert.deepEqual(byOutsider.body, { deleted: [], notFound: [guarded] });
  const byReader = await send(core, 'DELETE', BASE, [open, guarded], reader.token);
  assert.equal(byReader.status, 403, JSON.stringify(byReader.body));
  assert.match((byReader.body as { message: string }).message, new RegExp(`guarded ${n} \\(${guarded}\\)`));
  assert.equal((await send(core, 'GET', `${BASE}/${open}`)).status, 200, 'nothing was deleted, the open one neither');
  assert.equal((await send(core, 'GET', `${BASE}/${guarded}`)).status, 200);
  const byWriter = await send(core, 'DELETE', BASE, [guarded, open], writer.token);
  assert.deepEqual(byWriter.body, { deleted: [guarded, open], notFound: [] });
});

test('admins delete whatever the groups', async () => {
  assert.deepEqual((await send(core, 'DELETE', BASE, [guarded], catalogAdmin.token)).body, { deleted: [guarded], notFound: [] });
});

test('an empty write list lets every member of a read group write; empty lists restrict no one', async () => {
  await update(core, guarded, { gbac: { read: [readGroup], write: [] } });
  assert.equal((await send(core, 'PUT', `${BASE}/${guarded}/schedule`, { disabled: true }, reader.token)).status, 200);
  assert.equal((await send(core, 'GET', `${BASE}/${guarded}`, undefined, outsider.token)).status, 404);
  await update(core, guarded, { gbac: { read: [], write: [] } });
  assert.equal((await send(core, 'PUT', `${BASE}/${guarded}/schedule`, { disabled: false }, outsider.token)).status, 200);
});

test('migrating to the operations manager reads and marks the automation: 404 for a non-member, 403 for a read member, done by a write member', async () => {
  const omRoles = [role('OperationsManager', 'admin')];
  // The same people, now also allowed to migrate: only the catalog groups decide.
  const [outsiderOm, readerOm, writerOm] = await Promise.all([
    makeUser(core, `gbac-om-outsider-${n}`, { roles: omRoles, groups: [] }),
    makeUser(core, `gbac-om-reader-${n}`, { roles: omRoles, groups: [readGroup] }),
    makeUser(core, `gbac-om-writer-${n}`, { roles: omRoles, groups: [writeGroup] }),
  ]);
  const path = `/operations-manager/automations/migrate/${guarded}`;
  assert.equal((await send(core, 'POST', path, {}, outsiderOm.token)).status, 404);
  assert.equal((await send(core, 'POST', path, {}, readerOm.token)).status, 403);
  assert.equal(((await send(core, 'GET', `${BASE}/${guarded}`)).body as Json)['migratedToOM'], false, 'a refused migration marks nothing');
  const done = await send(core, 'POST', path, {}, writerOm.token);
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(((await send(core, 'GET', `${BASE}/${guarded}`)).body as Json)['migratedToOM'], true);
});
