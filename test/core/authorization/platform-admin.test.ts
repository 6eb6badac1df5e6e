/**
 * The obsolete Platform.admin role follows the release the platform claims:
 * before 2022.2 it can still be assigned (with a warning naming its
 * replacements); from 2022.2 on, assigning it is a 400.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { roleId } from '../../../kernel/store/ids.ts';
import { PLATFORM_ADMIN_ID } from '../../../core/src/authorization/assignments.ts';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';

type Doc = Record<string, unknown>;

const REPLACEMENTS = [
  'Adapters.admin', 'AdapterModels.admin', 'AdminEssentials.admin', 'Applications.admin', 'Authorization.admin', 'Health.admin', 'Integrations.admin',
  'IntegrationModels.admin', 'PrebuiltsRepository.admin', 'Prebuilts.admin', 'Profiles.admin', 'Schema.admin', 'UserManagement.admin',
];

const REPLACEMENT_IDS = REPLACEMENTS.map((name) => roleId(name.split('.')[0]!, 'admin'));

let store: Store;
let old: RunningCore;
let current: RunningCore;

async function call(core: RunningCore, method: string, path: string, body?: unknown): Promise<JsonResponse> {
  const init = body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
  const res = await core.request(path, { method, ...init });
  assert.doesNotMatch(JSON.stringify(res.body), /passwordHash|secretHash|scrypt\$/, `${method} ${path} leaked a secret`);
  return res;
}

function warnings(core: RunningCore, about: string): Array<Record<string, unknown>> {
  return core.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['level'] === 'warn' && String(l['message']).includes(about));
}

before(async () => {
  // Both cores share one store: what 2022.1 let through is what 2022.2 finds.
  store = await openTestStore();
  old = await startCore(store, { PLATFORM_RELEASE: '2022.1' });
  current = await startCore(store, { PLATFORM_RELEASE: '2022.2' });
});
after(async () => {
  await old.close();
  await current.close();
  await store.close();
});

describe('at 2022.1', () => {
  test('assigning Platform.admin to an account works and logs a warning naming the replacement roles', async () => {
    const id = ((await call(old, 'POST', '/authorization/accounts', { username: 'legacy-admin', password: 'legacy-secret' })).body as { data: Doc }).data['_id'] as string;
    const res = await call(old, 'PATCH', `/authorization/accounts/${id}`, { updates: { assignedRoles: [{ roleId: PLATFORM_ADMIN_ID }] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual((res.body as { data: Doc }).data['assignedRoles'], [{ roleId: PLATFORM_ADMIN_ID }, ...REPLACEMENT_IDS.map((roleId) => ({ roleId }))]);
    const [warning, ...more] = warnings(old, 'Platform.admin assigned to account legacy-admin');
    assert.ok(warning, old.logs.join(''));
    assert.equal(more.length, 0);
    assert.equal(
      warning['message'],
      `Platform.admin assigned to account legacy-admin: it is deprecated since 2021.2 and removed in 2022.2; assign its replacements instead: ${REPLACEMENTS.join(', ')}`,
    );
    assert.deepEqual(warning['replacements'], REPLACEMENTS);
  });

  test('an account given Platform.admin can at once call what its replacements allow, without a restart', async () => {
    const id = ((await call(old, 'POST', '/authorization/accounts', { username: 'runtime-admin', password: 'runtime-secret' })).body as { data: Doc }).data['_id'] as string;
    const { token } = await old.core.auth.sessions.start(id, 'account', 'login');
    // Authorization.admin allows reading accounts; UserManagement.admin and the others are in the same list.
    assert.equal((await old.request('/authorization/accounts', { token })).status, 403);
    assert.equal((await call(old, 'PATCH', `/authorization/accounts/${id}`, { assignedRoles: [{ roleId: PLATFORM_ADMIN_ID }] })).status, 200);
    const res = await old.request('/authorization/accounts', { token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  test('a list that keeps Platform.admin but drops a replacement gets the replacement back, as a restart would give it', async () => {
    const id = ((await call(old, 'POST', '/authorization/accounts', { username: 'partial-admin', password: 'partial-secret' })).body as { data: Doc }).data['_id'] as string;
    const res = await call(old, 'PATCH', `/authorization/accounts/${id}`, { assignedRoles: [{ roleId: PLATFORM_ADMIN_ID }, { roleId: REPLACEMENT_IDS[4]! }] });
    const held = ((res.body as { data: Doc }).data['assignedRoles'] as Array<{ roleId: string }>).map((r) => r.roleId);
    assert.deepEqual(new Set(held), new Set([PLATFORM_ADMIN_ID, ...REPLACEMENT_IDS]));
    assert.equal(held.length, 14);
  });

  test('creating a group with Platform.admin works, warns too, and gives its members the replacements at once', async () => {
    const res = await call(old, 'POST', '/authorization/groups', { group: { name: 'legacy-admins', assignedRoles: [{ roleId: PLATFORM_ADMIN_ID }] } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(warnings(old, 'Platform.admin assigned to group legacy-admins').length, 1);
    const group = (res.body as { data: Doc }).data;
    assert.deepEqual(new Set((group['assignedRoles'] as Array<{ roleId: string }>).map((r) => r.roleId)), new Set([PLATFORM_ADMIN_ID, ...REPLACEMENT_IDS]));
    const member = ((await call(old, 'POST', '/authorization/accounts', { username: 'group-admin', password: 'group-secret', memberOf: [{ groupId: group['_id'] }] })).body as { data: Doc }).data['_id'] as string;
    const { token } = await old.core.auth.sessions.start(member, 'account', 'login');
    assert.equal((await old.request('/authorization/accounts', { token })).status, 200);
  });

  test('a group patched to hold Platform.admin gives its members the replacements at once', async () => {
    const groupId = ((await call(old, 'POST', '/authorization/groups', { name: 'later-admins' })).body as { data: Doc }).data['_id'] as string;
    const member = ((await call(old, 'POST', '/authorization/accounts', { username: 'later-admin', password: 'later-secret', memberOf: [{ groupId }] })).body as { data: Doc }).data['_id'] as string;
    const { token } = await old.core.auth.sessions.start(member, 'account', 'login');
    assert.equal((await old.request('/authorization/accounts', { token })).status, 403);
    assert.equal((await call(old, 'PATCH', `/authorization/groups/${groupId}`, { assignedRoles: [{ roleId: PLATFORM_ADMIN_ID }] })).status, 200);
    assert.equal((await old.request('/authorization/accounts', { token })).status, 200);
  });

  test('a write that does not give Platform.admin logs no such warning', async () => {
    const before = warnings(old, 'Platform.admin').length;
    assert.equal((await call(old, 'POST', '/authorization/groups', { name: 'plain-group' })).status, 200);
    assert.equal(warnings(old, 'Platform.admin').length, before);
  });
});

describe('at 2022.2', () => {
  const refusal = `The role Platform.admin was removed in 2022.2 (this platform is 2022.2); assign its replacements instead: ${REPLACEMENTS.join(', ')}`;

  test('assigning Platform.admin to an account, a new account or a group is a 400 naming the thirteen replacements', async () => {
    const id = ((await call(current, 'POST', '/authorization/accounts', { username: 'modern', password: 'modern-secret' })).body as { data: Doc }).data['_id'] as string;
    const attempts: Array<[string, string, unknown]> = [
      ['PATCH', `/authorization/accounts/${id}`, { assignedRoles: [{ roleId: PLATFORM_ADMIN_ID }] }],
      ['POST', '/authorization/accounts', { username: 'modern-2', password: 'modern-secret', assignedRoles: [{ roleId: PLATFORM_ADMIN_ID }] }],
      ['POST', '/authorization/groups', { name: 'modern-admins', assignedRoles: [{ roleId: PLATFORM_ADMIN_ID }] }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await call(current, method, path, body);
      assert.equal(res.status, 400, `${method} ${path}`);
      assert.deepEqual(res.body, {
        message: refusal,
        code: 'BAD_REQUEST',
        details: [{ parameter: 'assignedRoles', message: `${PLATFORM_ADMIN_ID} is Platform.admin, removed in 2022.2` }],
      });
    }
    assert.deepEqual(((await call(current, 'GET', `/authorization/accounts/${id}`)).body as Doc)['assignedRoles'], []);
    assert.deepEqual((await call(current, 'GET', '/authorization/accounts?equals=modern-2&equalsField=username')).body, { results: [], total: 0 });
  });

  test('an account that already holds it may still be changed without dropping it', async () => {
    const found = (await call(current, 'GET', '/authorization/accounts?equals=legacy-admin&equalsField=username')).body as { results: Doc[] };
    const account = found.results[0]!;
    const roles = account['assignedRoles'] as Array<{ roleId: string }>;
    assert.ok(roles.some((r) => r.roleId === PLATFORM_ADMIN_ID));
    const res = await call(current, 'PATCH', `/authorization/accounts/${String(account['_id'])}`, { email: 'legacy@example.com', assignedRoles: roles });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual((res.body as { data: Doc }).data['assignedRoles'], roles);
  });
});
