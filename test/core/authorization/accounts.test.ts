/**
 * Accounts over HTTP: creating local accounts, logging in with them, PATCH
 * semantics (wrapped and bare bodies, arrays replace, unknown ids refused),
 * deactivation ending sessions, and password changes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { ADMIN_PASSWORD, startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { client } from './client.ts';
import type { Doc, Written } from './client.ts';


let core: RunningCore;
const { call } = client(() => core);
let store: Store;
let omApiread: string;
let omOperations: string;
let groupA: string;
let groupB: string;


async function written(method: string, path: string, body: unknown): Promise<Written> {
  const res = await call(method, path, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Written;
}

async function login(username: string, password: string): Promise<JsonResponse> {
  return call('POST', '/login', { user: { username, password } }, null);
}

async function createAccount(username: string, extra: Doc = {}): Promise<string> {
  return (await written('POST', '/authorization/accounts', { account: { username, password: `${username}-secret`, ...extra } })).data['_id'] as string;
}

async function roleId(provenance: string, name: string): Promise<string> {
  const res = await call('GET', `/authorization/roles?equals=${name}&equalsField=name&limit=1000`);
  const role = (res.body as { results: Doc[] }).results.find((r) => r['provenance'] === provenance);
  assert.ok(role, `built-in role ${provenance}.${name}`);
  return role['_id'] as string;
}

function basic(username: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

before(async () => {
  store = await openTestStore();
  core = await startCore(store);
  omApiread = await roleId('OperationsManager', 'apiread');
  omOperations = await roleId('OperationsManager', 'operations');
  groupA = (await written('POST', '/authorization/groups', { name: 'group-a' })).data['_id'] as string;
  groupB = (await written('POST', '/authorization/groups', { name: 'group-b' })).data['_id'] as string;
});
after(async () => {
  await core.close();
  await store.close();
});

describe('creating local accounts', () => {
  test('POST with the account wrapper answers OK, the new id and the account without its password hash', async () => {
    const res = await written('POST', '/authorization/accounts', { account: { username: 'olga', password: 'olga-password', firstname: 'Olga', email: 'olga@example.com', memberOf: [{ groupId: groupA }], assignedRoles: [] } });
    const id = res.data['_id'] as string;
    assert.match(id, /^[0-9a-f]{24}$/);
    const meta = res.data['_meta'] as { created: string; updated: string };
    assert.equal(meta.created, meta.updated);
    assert.equal(new Date(meta.created).toISOString(), meta.created);
    assert.deepEqual(res, {
      status: 'OK',
      message: `Successfully created account ${id}.`,
      data: { _id: id, username: 'olga', firstname: 'Olga', email: 'olga@example.com', provenance: 'Local AAA', inactive: false, loggedIn: false, memberOf: [{ groupId: groupA, aaaManaged: false }], assignedRoles: [], gitTokens: {}, _meta: meta },
    });
    const stored = await store.collection('accounts').findById(id);
    assert.match(String(stored?.['passwordHash']), /^scrypt\$/);
  });

  test('the bare form is accepted too, and the account has no roles', async () => {
    const res = await written('POST', '/authorization/accounts', { username: 'pete', password: 'pete-password' });
    assert.deepEqual([res.data['username'], res.data['assignedRoles'], res.data['memberOf']], ['pete', [], []]);
  });

  test('a username already taken is a 409', async () => {
    const res = await call('POST', '/authorization/accounts', { username: 'admin', password: 'whatever-long' });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { message: 'An account named admin already exists', code: 'CONFLICT', details: [{ parameter: 'username', message: 'is already the username of another account' }] });
  });

  const refused: Array<[string, Doc, string]> = [
    ['a password shorter than 8 characters', { account: { username: 'shorty', password: 'seven77' } }, 'body.account.password'],
    ['a username with a colon', { username: 'a:b', password: 'long-enough' }, 'body.username'],
    ['a missing password', { username: 'nopass' }, 'body.password'],
    ['an unknown field', { username: 'extra', password: 'long-enough', inactive: true }, 'body.inactive'],
  ];
  for (const [what, body, parameter] of refused) {
    test(`${what} is a 400 naming ${parameter}`, async () => {
      const res = await call('POST', '/authorization/accounts', body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual((res.body as { details: Array<{ parameter: string }> }).details.map((d) => d.parameter), [parameter]);
    });
  }

  test('unknown role and group ids are a 400 naming them, and nothing is created', async () => {
    const res = await call('POST', '/authorization/accounts', { username: 'ghost', password: 'long-enough', assignedRoles: [{ roleId: 'nope-role' }], memberOf: [{ groupId: 'nope-group' }] });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      message: 'Invalid body: unknown role ids: nope-role; unknown group ids: nope-group',
      code: 'VALIDATION_FAILED',
      details: [
        { parameter: 'assignedRoles', message: 'nope-role is not a known role id' },
        { parameter: 'memberOf', message: 'nope-group is not a known group id' },
      ],
    });
    assert.deepEqual((await call('GET', '/authorization/accounts?equals=ghost&equalsField=username')).body, { results: [], total: 0 });
  });

  test('a new account logs in and gets 403 on the jobs until given a role, then 200', async () => {
    const id = await createAccount('quinn');
    const res = await login('quinn', 'quinn-secret');
    assert.equal(res.status, 200);
    const token = res.body as string;
    assert.match(token, /^[0-9a-f]{64}$/);
    assert.equal((await call('GET', '/operations-manager/jobs', undefined, token)).status, 403);
    await written('PATCH', `/authorization/accounts/${id}`, { updates: { assignedRoles: [{ roleId: omApiread }] } });
    const jobs = await call('GET', '/operations-manager/jobs', undefined, token);
    assert.equal(jobs.status, 200, JSON.stringify(jobs.body));
    assert.equal(((await call('GET', `/authorization/accounts/${id}`)).body as Doc)['loggedIn'], true);
  });
});

describe('PATCH /authorization/accounts/:accountId', () => {
  let id: string;
  before(async () => {
    id = await createAccount('rita', { email: 'rita@example.com', firstname: 'Rita' });
  });

  test('the wrapped form changes the named fields and answers OK with the account', async () => {
    const res = await written('PATCH', `/authorization/accounts/${id}`, { updates: { email: 'rita@new.example.com', assignedRoles: [{ roleId: omApiread }, { roleId: omOperations }], memberOf: [{ groupId: groupA, aaaManaged: true }] } });
    assert.equal(res.status, 'OK');
    assert.equal(res.message, `Successfully updated account ${id}.`);
    const { _meta, ...rest } = res.data;
    assert.deepEqual(rest, {
      _id: id, username: 'rita', firstname: 'Rita', email: 'rita@new.example.com', provenance: 'Local AAA', inactive: false, loggedIn: false,
      memberOf: [{ groupId: groupA, aaaManaged: true }], assignedRoles: [{ roleId: omApiread }, { roleId: omOperations }], gitTokens: {},
    });
    const meta = _meta as { created: string; updated: string };
    assert.ok(meta.updated >= meta.created);
  });

  test('the bare form works, and listed arrays replace the old ones while other fields stay', async () => {
    const res = await written('PATCH', `/authorization/accounts/${id}`, { assignedRoles: [{ roleId: omOperations }], memberOf: [{ groupId: groupB }] });
    assert.deepEqual(res.data['assignedRoles'], [{ roleId: omOperations }]);
    assert.deepEqual(res.data['memberOf'], [{ groupId: groupB, aaaManaged: false }]);
    assert.equal(res.data['email'], 'rita@new.example.com');
    const read = await call('GET', `/authorization/accounts/${id}`);
    assert.deepEqual(read.body, res.data);
  });

  test('an empty list removes every entry, and a repeated id is kept once', async () => {
    const res = await written('PATCH', `/authorization/accounts/${id}`, { assignedRoles: [], memberOf: [{ groupId: groupA }, { groupId: groupA }] });
    assert.deepEqual([res.data['assignedRoles'], res.data['memberOf']], [[], [{ groupId: groupA, aaaManaged: false }]]);
  });

  test('unknown role or group ids are a 400 naming them, and the account is unchanged', async () => {
    const before = (await call('GET', `/authorization/accounts/${id}`)).body;
    const res = await call('PATCH', `/authorization/accounts/${id}`, { updates: { firstname: 'Changed', assignedRoles: [{ roleId: omApiread }, { roleId: 'missing-role' }] } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { message: 'Invalid body: unknown role ids: missing-role', code: 'VALIDATION_FAILED', details: [{ parameter: 'assignedRoles', message: 'missing-role is not a known role id' }] });
    assert.deepEqual((await call('GET', `/authorization/accounts/${id}`)).body, before);
  });

  const refused: Array<[string, unknown, string]> = [
    ['an empty body', {}, 'body'],
    ['an empty updates object', { updates: {} }, 'body.updates'],
    ['updates mixed with bare fields', { updates: { email: 'a@b.c' }, inactive: true }, 'body.inactive'],
    ['a username change', { username: 'renamed' }, 'body.username'],
    ['a password in a PATCH', { updates: { password: 'long-enough' } }, 'body.updates.password'],
    ['inactive that is not a boolean', { inactive: 'yes' }, 'body.inactive'],
    ['a role reference without roleId', { assignedRoles: [{ id: 'x' }] }, 'body.assignedRoles[0].roleId'],
  ];
  for (const [what, body, parameter] of refused) {
    test(`${what} is a 400 naming ${parameter}`, async () => {
      const res = await call('PATCH', `/authorization/accounts/${id}`, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.ok((res.body as { details: Array<{ parameter: string }> }).details.some((d) => d.parameter === parameter), JSON.stringify(res.body));
    });
  }

  test('an unknown account is a 404', async () => {
    const res = await call('PATCH', '/authorization/accounts/0123456789abcdef01234567', { inactive: true });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { message: 'Account 0123456789abcdef01234567 not found', code: 'NOT_FOUND', details: [] });
  });
});

describe('deactivation and passwords', () => {
  test("deactivating an account ends its sessions at once, refuses its logins and Basic credentials, and reactivating lets it back", async () => {
    const id = await createAccount('sam');
    const token = (await login('sam', 'sam-secret')).body as string;
    assert.equal((await call('GET', '/whoami', undefined, token)).status, 200);
    assert.equal((await core.request('/whoami', { token: null, headers: basic('sam', 'sam-secret') })).status, 200);
    const res = await written('PATCH', `/authorization/accounts/${id}`, { inactive: true });
    assert.deepEqual([res.data['inactive'], res.data['loggedIn']], [true, false]);
    assert.equal((await call('GET', '/whoami', undefined, token)).status, 401);
    assert.equal((await core.request('/whoami', { token: null, headers: basic('sam', 'sam-secret') })).status, 401);
    assert.equal((await login('sam', 'sam-secret')).status, 401);
    const sessions = await store.collection('sessions').search({ where: null, sort: [], skip: 0, limit: 1000 });
    assert.equal(sessions.docs.filter((s) => s['accountId'] === id).length, 0);
    await written('PATCH', `/authorization/accounts/${id}`, { updates: { inactive: false } });
    assert.equal((await login('sam', 'sam-secret')).status, 200);
  });

  test('a new password works at once, the old one and the other sessions stop, and the admin keeps its session', async () => {
    const id = await createAccount('tess');
    const token = (await login('tess', 'tess-secret')).body as string;
    assert.equal((await core.request('/whoami', { token: null, headers: basic('tess', 'tess-secret') })).status, 200);
    const res = await call('PUT', `/authorization/accounts/${id}/password`, { password: 'tess-new-password' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'OK', message: `Successfully changed the password of account ${id}.` });
    assert.equal((await call('GET', '/whoami', undefined, token)).status, 401);
    assert.equal((await core.request('/whoami', { token: null, headers: basic('tess', 'tess-secret') })).status, 401);
    assert.equal((await login('tess', 'tess-secret')).status, 401);
    assert.equal((await login('tess', 'tess-new-password')).status, 200);
    assert.equal((await call('GET', '/whoami')).status, 200);
  });

  test("the administrator changing its own password keeps the session it used and ends its others", async () => {
    const admin = (await call('GET', '/whoami')).body as { id: string };
    const other = (await login('admin', ADMIN_PASSWORD)).body as string;
    const res = await call('PUT', `/authorization/accounts/${admin.id}/password`, { password: ADMIN_PASSWORD });
    assert.equal(res.status, 200);
    assert.equal((await call('GET', '/whoami')).status, 200);
    assert.equal((await call('GET', '/whoami', undefined, other)).status, 401);
  });

  test('a short password, an extra field or an unknown account is refused', async () => {
    const id = await createAccount('uma');
    const short = await call('PUT', `/authorization/accounts/${id}/password`, { password: 'short' });
    assert.equal(short.status, 400);
    assert.deepEqual((short.body as { details: unknown }).details, [{ parameter: 'body.password', message: 'password length must be at least 8 characters long' }]);
    assert.equal((await call('PUT', `/authorization/accounts/${id}/password`, { password: 'long-enough', old: 'x' })).status, 400);
    assert.equal((await call('PUT', '/authorization/accounts/0123456789abcdef01234567/password', { password: 'long-enough' })).status, 404);
    assert.equal((await login('uma', 'uma-secret')).status, 200);
  });
});
