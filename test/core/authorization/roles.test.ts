/**
 * Roles over HTTP: custom roles made of existing methods and views, what
 * they grant, duplicates, built-in roles that cannot be changed, and a
 * deleted role removed from every assignedRoles.
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
let builtIn: Doc;



const jobReader = { provenance: 'OperationsManager', name: 'jobReader', description: 'Reads jobs', allowedMethods: [{ provenance: 'OperationsManager', name: 'getJobs' }], allowedViews: [{ provenance: 'OperationsManager', path: '/operations-manager/' }] };

before(async () => {
  store = await openTestStore();
  core = await startCore(store);
  const roles = (await call('GET', '/authorization/roles?equals=apiread&equalsField=name&limit=1000')).body as { results: Doc[] };
  builtIn = roles.results.find((r) => r['provenance'] === 'OperationsManager')!;
});
after(async () => {
  await core.close();
  await store.close();
});

describe('custom roles', () => {
  let id: string;

  test('POST with the role wrapper answers OK and the role; GET reads it back', async () => {
    const res = await written('POST', '/authorization/roles', { role: jobReader });
    id = res.data['_id'] as string;
    assert.match(id, /^[0-9a-f]{24}$/);
    assert.deepEqual(res, { status: 'OK', message: `Successfully created role ${id}.`, data: { _id: id, ...jobReader } });
    assert.deepEqual((await call('GET', `/authorization/roles/${id}`)).body, res.data);
  });

  test('the role grants exactly its methods to an account that holds it', async () => {
    const account = await written('POST', '/authorization/accounts', { username: 'viewer', password: 'viewer-secret', assignedRoles: [{ roleId: id }] });
    const token = (await call('POST', '/login', { user: { username: 'viewer', password: 'viewer-secret' } }, null)).body as string;
    assert.equal((await call('GET', '/operations-manager/jobs', undefined, token)).status, 200);
    assert.equal((await call('GET', '/operations-manager/tasks', undefined, token)).status, 403);
    const whoami = (await call('GET', '/whoami', undefined, token)).body as { methods: Doc; roles: string[] };
    assert.deepEqual(whoami.methods, { OperationsManager: ['getJobs'] });
    assert.deepEqual(whoami.roles, [id]);
    assert.equal(account.data['username'], 'viewer');
  });

  test('PATCH replaces the listed grants, bare or wrapped, and the new grants apply at once', async () => {
    const res = await written('PATCH', `/authorization/roles/${id}`, { updates: { description: 'Reads tasks', allowedMethods: [{ provenance: 'OperationsManager', name: 'getTasks' }] } });
    assert.deepEqual(res, { status: 'OK', message: `Successfully updated role ${id}.`, data: { _id: id, ...jobReader, description: 'Reads tasks', allowedMethods: [{ provenance: 'OperationsManager', name: 'getTasks' }] } });
    const token = (await call('POST', '/login', { user: { username: 'viewer', password: 'viewer-secret' } }, null)).body as string;
    assert.equal((await call('GET', '/operations-manager/tasks', undefined, token)).status, 200);
    assert.equal((await call('GET', '/operations-manager/jobs', undefined, token)).status, 403);
    const bare = await written('PATCH', `/authorization/roles/${id}`, { allowedViews: [] });
    assert.deepEqual(bare.data['allowedViews'], []);
  });

  test('a duplicate (provenance, name) is a 409, on create and on rename, built-in names included', async () => {
    const again = await call('POST', '/authorization/roles', jobReader);
    assert.deepEqual([again.status, again.body], [409, { message: 'A role named jobReader of OperationsManager already exists', code: 'CONFLICT', details: [{ parameter: 'name', message: 'is already the name of another role' }] }]);
    assert.equal((await call('POST', '/authorization/roles', { provenance: 'OperationsManager', name: 'apiread' })).status, 409);
    assert.equal((await call('PATCH', `/authorization/roles/${id}`, { name: 'apiread' })).status, 409);
    assert.equal((await call('POST', '/authorization/roles', { provenance: 'Custom', name: 'jobReader' })).status, 200);
  });

  test('methods and views that no route provides are a 400 naming each of them', async () => {
    const res = await call('POST', '/authorization/roles', {
      provenance: 'Custom', name: 'bogus',
      allowedMethods: [{ provenance: 'OperationsManager', name: 'getJobs' }, { provenance: 'OperationsManager', name: 'noSuchMethod' }],
      allowedViews: [{ provenance: 'Nowhere', path: '/nowhere/' }],
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      message: 'Invalid body: OperationsManager.noSuchMethod is not a known method; Nowhere /nowhere/ is not a known view',
      code: 'VALIDATION_FAILED',
      details: [
        { parameter: 'allowedMethods', message: 'OperationsManager.noSuchMethod is not a known method' },
        { parameter: 'allowedViews', message: 'Nowhere /nowhere/ is not a known view' },
      ],
    });
    assert.deepEqual((await call('GET', '/authorization/roles?equals=bogus&equalsField=name')).body, { results: [], total: 0 });
  });

  test('a missing name or a malformed method reference is a 400 naming it', async () => {
    const res = await call('POST', '/authorization/roles', { role: { provenance: 'Custom', allowedMethods: [{ provenance: 'OperationsManager' }] } });
    assert.equal(res.status, 400);
    assert.deepEqual((res.body as { details: Array<{ parameter: string }> }).details.map((d) => d.parameter).sort(), ['body.role.allowedMethods[0].name', 'body.role.name']);
  });
});

describe('built-in roles', () => {
  test('cannot be changed: 400 saying they are made from the routes at every start', async () => {
    const res = await call('PATCH', `/authorization/roles/${String(builtIn['_id'])}`, { description: 'mine now' });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      message: `Role ${String(builtIn['_id'])} (OperationsManager.apiread) is built in and cannot be changed: built-in roles are made from the routes at every start`,
      code: 'BAD_REQUEST',
      details: [],
    });
    assert.deepEqual((await call('GET', `/authorization/roles/${String(builtIn['_id'])}`)).body, builtIn);
  });

  test('cannot be deleted', async () => {
    const res = await call('DELETE', `/authorization/roles/${String(builtIn['_id'])}`);
    assert.equal(res.status, 400);
    assert.match((res.body as { message: string }).message, /is built in and cannot be deleted: built-in roles are made from the routes at every start$/);
    assert.equal((await call('GET', `/authorization/roles/${String(builtIn['_id'])}`)).status, 200);
  });

  test('an unknown role is a 404 on read, change and delete', async () => {
    for (const [method, body] of [['GET', undefined], ['PATCH', { name: 'x' }], ['DELETE', undefined]] as const) {
      const res = await call(method, '/authorization/roles/nope', body);
      assert.deepEqual([res.status, res.body], [404, { message: 'Role nope not found', code: 'NOT_FOUND', details: [] }], method);
    }
  });
});

describe('DELETE', () => {
  test("answers OK and removes the role from every account's and group's assignedRoles", async () => {
    const role = (await written('POST', '/authorization/roles', { provenance: 'Custom', name: 'short-lived', allowedMethods: [{ provenance: 'OperationsManager', name: 'getJobs' }] })).data['_id'] as string;
    const other = String(builtIn['_id']);
    const group = (await written('POST', '/authorization/groups', { name: 'holders', assignedRoles: [{ roleId: role }, { roleId: other }] })).data['_id'] as string;
    const account = (await written('POST', '/authorization/accounts', { username: 'holder', password: 'holder-secret', assignedRoles: [{ roleId: role }] })).data['_id'] as string;
    const token = (await call('POST', '/login', { user: { username: 'holder', password: 'holder-secret' } }, null)).body as string;
    assert.equal((await call('GET', '/operations-manager/jobs', undefined, token)).status, 200);
    const res = await call('DELETE', `/authorization/roles/${role}`);
    assert.deepEqual([res.status, res.body], [200, { status: 'OK', message: `Successfully deleted ${role}.` }]);
    assert.deepEqual(((await call('GET', `/authorization/accounts/${account}`)).body as Doc)['assignedRoles'], []);
    assert.deepEqual(((await call('GET', `/authorization/groups/${group}`)).body as Doc)['assignedRoles'], [{ roleId: other }]);
    assert.deepEqual((await call('GET', `/authorization/accounts?equals=${role}&equalsField=assignedRoles.roleId`)).body, { results: [], total: 0 });
    assert.equal((await call('GET', '/operations-manager/jobs', undefined, token)).status, 403);
    assert.equal((await call('GET', `/authorization/roles/${role}`)).status, 404);
  });
});
