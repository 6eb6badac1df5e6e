/**
 * Groups over HTTP: create, read, PATCH and DELETE with exact answers; roles
 * granted through a group and through a group inside another group; cycles
 * refused; a deleted group removed from every memberOf.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { client } from './client.ts';
import type { Doc } from './client.ts';


let core: RunningCore;
const { call, written } = client(() => core);
let store: Store;
let omApiread: string;



const createGroup = async (name: string, extra: Doc = {}): Promise<string> => (await written('POST', '/authorization/groups', { group: { name, ...extra } })).data['_id'] as string;

/** An account in the given groups, logged in: answers its id and token. */
async function member(username: string, groups: string[]): Promise<{ id: string; token: string }> {
  const created = await written('POST', '/authorization/accounts', { username, password: `${username}-secret`, memberOf: groups.map((groupId) => ({ groupId })) });
  const res = await call('POST', '/login', { user: { username, password: `${username}-secret` } }, null);
  assert.equal(res.status, 200);
  return { id: created.data['_id'] as string, token: res.body as string };
}

const jobsStatus = async (token: string): Promise<number> => (await call('GET', '/operations-manager/jobs', undefined, token)).status;

before(async () => {
  store = await openTestStore();
  core = await startCore(store);
  const roles = (await call('GET', '/authorization/roles?equals=apiread&equalsField=name&limit=1000')).body as { results: Doc[] };
  omApiread = roles.results.find((r) => r['provenance'] === 'OperationsManager')!['_id'] as string;
});
after(async () => {
  await core.close();
  await store.close();
});

describe('create and read', () => {
  test('POST with the group wrapper answers OK, the id, and the group as the platform shapes it', async () => {
    const res = await written('POST', '/authorization/groups', { group: { name: 'operators', description: 'Runs jobs', provenance: 'Pronghorn', assignedRoles: [{ roleId: omApiread }], inactive: false, memberOf: [] } });
    const id = res.data['_id'] as string;
    const meta = res.data['_meta'] as { created: string; updated: string };
    assert.deepEqual(res, {
      status: 'OK',
      message: `Successfully created group ${id}.`,
      data: { _id: id, name: 'operators', description: 'Runs jobs', provenance: 'Pronghorn', memberOf: [], assignedRoles: [{ roleId: omApiread }], inactive: false, _meta: meta },
    });
    assert.deepEqual((await call('GET', `/authorization/groups/${id}`)).body, res.data);
  });

  test('the bare form gets defaults: empty description, provenance Local AAA, active, no roles', async () => {
    const res = await written('POST', '/authorization/groups', { name: 'bare-group' });
    const { _id, _meta, ...rest } = res.data;
    assert.deepEqual(rest, { name: 'bare-group', description: '', provenance: 'Local AAA', memberOf: [], assignedRoles: [], inactive: false });
  });

  test('a duplicate name of the same provenance is a 409; another provenance may reuse it', async () => {
    await createGroup('twins');
    const res = await call('POST', '/authorization/groups', { name: 'twins' });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { message: 'A group named twins (provenance Local AAA) already exists', code: 'CONFLICT', details: [{ parameter: 'name', message: 'is already the name of another group' }] });
    assert.equal((await call('POST', '/authorization/groups', { name: 'twins', provenance: 'LDAP' })).status, 200);
  });

  test('a missing name, an unknown role and an unknown group are 400s', async () => {
    const noName = await call('POST', '/authorization/groups', { group: { description: 'x' } });
    assert.deepEqual([noName.status, (noName.body as { details: Array<{ parameter: string }> }).details.map((d) => d.parameter)], [400, ['body.group.name']]);
    const unknown = await call('POST', '/authorization/groups', { name: 'ghosts', assignedRoles: [{ roleId: 'r-x' }], memberOf: [{ groupId: 'g-x' }] });
    assert.equal(unknown.status, 400);
    assert.equal((unknown.body as { message: string }).message, 'Invalid body: unknown role ids: r-x; unknown group ids: g-x');
  });

  test('an unknown group is a 404 on read, change and delete', async () => {
    const id = '0123456789abcdef01234567';
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'x' }], ['DELETE', undefined]] as const) {
      const res = await call(method, `/authorization/groups/${id}`, body);
      assert.deepEqual([res.status, res.body], [404, { message: `Group ${id} not found`, code: 'NOT_FOUND', details: [] }], method);
    }
  });
});

describe('PATCH', () => {
  test('name, description and inactive change; listed arrays replace; other fields stay', async () => {
    const parent = await createGroup('patch-parent');
    const id = await createGroup('patch-me', { description: 'before', assignedRoles: [{ roleId: omApiread }] });
    const res = await written('PATCH', `/authorization/groups/${id}`, { updates: { name: 'patched', description: 'after', inactive: true, memberOf: [{ groupId: parent }] } });
    assert.equal(res.message, `Successfully updated group ${id}.`);
    const { _meta, ...rest } = res.data;
    assert.deepEqual(rest, { _id: id, name: 'patched', description: 'after', provenance: 'Local AAA', memberOf: [{ groupId: parent, aaaManaged: false }], assignedRoles: [{ roleId: omApiread }], inactive: true });
    const bare = await written('PATCH', `/authorization/groups/${id}`, { assignedRoles: [], memberOf: [] });
    assert.deepEqual([bare.data['assignedRoles'], bare.data['memberOf'], bare.data['name']], [[], [], 'patched']);
  });

  test('renaming onto an existing name is a 409', async () => {
    await createGroup('taken-name');
    const id = await createGroup('free-name');
    const res = await call('PATCH', `/authorization/groups/${id}`, { name: 'taken-name' });
    assert.equal(res.status, 409);
    assert.equal((await written('PATCH', `/authorization/groups/${id}`, { name: 'free-name', description: 'same name is fine' })).data['name'], 'free-name');
  });

  test('a group cannot be its own member, directly or through others', async () => {
    const a = await createGroup('cycle-a');
    const b = await createGroup('cycle-b', { memberOf: [{ groupId: a }] });
    const c = await createGroup('cycle-c', { memberOf: [{ groupId: b }] });
    const self = await call('PATCH', `/authorization/groups/${a}`, { memberOf: [{ groupId: a }] });
    assert.equal(self.status, 400);
    assert.equal((self.body as { code: string }).code, 'BAD_REQUEST');
    const indirect = await call('PATCH', `/authorization/groups/${a}`, { memberOf: [{ groupId: c }] });
    assert.equal(indirect.status, 400);
    assert.deepEqual(indirect.body, {
      message: `Group ${a} cannot be a member of ${c}: that would make it a member of itself`,
      code: 'BAD_REQUEST',
      details: [{ parameter: 'memberOf', message: `makes a cycle through ${b}` }],
    });
    assert.deepEqual(((await call('GET', `/authorization/groups/${a}`)).body as Doc)['memberOf'], []);
    const fine = await written('PATCH', `/authorization/groups/${c}`, { memberOf: [{ groupId: a }, { groupId: b }] });
    assert.equal((fine.data['memberOf'] as unknown[]).length, 2);
  });
});

describe('roles through groups', () => {
  test('a role held by a group is granted to its members, and taken back when the group loses it', async () => {
    const group = await createGroup('readers');
    const { token } = await member('reader', [group]);
    assert.equal(await jobsStatus(token), 403);
    await written('PATCH', `/authorization/groups/${group}`, { assignedRoles: [{ roleId: omApiread }] });
    assert.equal(await jobsStatus(token), 200);
    await written('PATCH', `/authorization/groups/${group}`, { assignedRoles: [] });
    assert.equal(await jobsStatus(token), 403);
  });

  test('a role held by an outer group reaches members of a group inside it, while the outer group is active', async () => {
    const outer = await createGroup('outer', { assignedRoles: [{ roleId: omApiread }] });
    const inner = await createGroup('inner');
    const { token } = await member('nested', [inner]);
    assert.equal(await jobsStatus(token), 403);
    await written('PATCH', `/authorization/groups/${inner}`, { memberOf: [{ groupId: outer }] });
    assert.equal(await jobsStatus(token), 200);
    await written('PATCH', `/authorization/groups/${outer}`, { inactive: true });
    assert.equal(await jobsStatus(token), 403);
  });
});

describe('DELETE', () => {
  test('answers OK and removes the group from every account and group that named it', async () => {
    const doomed = await createGroup('doomed', { assignedRoles: [{ roleId: omApiread }] });
    const keep = await createGroup('kept');
    const child = await createGroup('child', { memberOf: [{ groupId: doomed }, { groupId: keep }] });
    const { id, token } = await member('orphan', [doomed, keep]);
    assert.equal(await jobsStatus(token), 200);
    const res = await call('DELETE', `/authorization/groups/${doomed}`);
    assert.deepEqual([res.status, res.body], [200, { status: 'OK', message: `Successfully deleted ${doomed}.` }]);
    assert.deepEqual(((await call('GET', `/authorization/accounts/${id}`)).body as Doc)['memberOf'], [{ groupId: keep, aaaManaged: false }]);
    assert.deepEqual(((await call('GET', `/authorization/groups/${child}`)).body as Doc)['memberOf'], [{ groupId: keep, aaaManaged: false }]);
    assert.deepEqual((await call('GET', `/authorization/accounts?memberOf=${doomed}`)).body, { results: [], total: 0 });
    assert.equal((await call('GET', `/authorization/groups/${doomed}`)).status, 404);
    assert.equal(await jobsStatus(token), 403);
  });
});
