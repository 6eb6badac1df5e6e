/**
 * Who may call the authorization module: reads need an Authorization role
 * (admin, apiread or support), every write needs Authorization.admin, and
 * service accounts are for admins only. The routes are enumerated from the
 * route table, so a new write cannot slip through unguarded.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyRoute } from '../../../kernel/http/route.ts';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';

type Doc = Record<string, unknown>;

let core: RunningCore;
let store: Store;
const tokens: Record<'reader' | 'support' | 'nobody', string> = { reader: '', support: '', nobody: '' };
let someAccount: string;

async function call(method: string, path: string, token: string | null, body?: unknown): Promise<JsonResponse> {
  const init = body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
  const res = await core.request(path, { method, ...init, token });
  assert.doesNotMatch(JSON.stringify(res.body), /passwordHash|secretHash|scrypt\$/, `${method} ${path} leaked a secret`);
  return res;
}

/** A concrete path for a route: path parameters filled with an existing account's id. */
const concrete = (route: AnyRoute): string => route.path.replace(/:[A-Za-z]+/g, someAccount);
const routes = (): AnyRoute[] => core.core.routes.filter((r) => r.provenance === 'Authorization');
const isWrite = (r: AnyRoute): boolean => r.method !== 'GET';
const isServiceAccounts = (r: AnyRoute): boolean => r.path.startsWith('/oauth/');

before(async () => {
  store = await openTestStore();
  core = await startCore(store);
  const admin = core.adminToken;
  const roles = (await call('GET', '/authorization/roles?equals=Authorization&equalsField=provenance', admin)).body as { results: Doc[] };
  const role = (name: string): string => roles.results.find((r) => r['name'] === name)!['_id'] as string;
  const people: Array<[keyof typeof tokens, string[]]> = [['reader', [role('apiread')]], ['support', [role('support')]], ['nobody', []]];
  for (const [username, roleIds] of people) {
    const res = await call('POST', '/authorization/accounts', admin, { username, password: `${username}-secret`, assignedRoles: roleIds.map((roleId) => ({ roleId })) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    someAccount = (res.body as { data: Doc }).data['_id'] as string;
    tokens[username] = (await call('POST', '/login', null, { user: { username, password: `${username}-secret` } })).body as string;
  }
});
after(async () => {
  await core.close();
  await store.close();
});

test('the module declares its routes with the Authorization provenance and the documented roles', () => {
  const table = routes().map((r) => `${r.method} ${r.path} ${r.name} ${(r.roles as string[]).join(',')}`).sort();
  const read = 'admin,apiread,support';
  assert.deepEqual(table, [
    `DELETE /authorization/groups/:groupId deleteGroup admin`,
    `DELETE /authorization/roles/:roleId deleteRole admin`,
    `DELETE /oauth/serviceAccounts/:clientId deleteServiceAccount admin`,
    `GET /authorization/accounts getAccounts ${read}`,
    `GET /authorization/accounts/:accountId getAccount ${read}`,
    `GET /authorization/groups getGroups ${read}`,
    `GET /authorization/groups/:groupId getGroup ${read}`,
    `GET /authorization/methods getMethods ${read}`,
    `GET /authorization/roles getRoles ${read}`,
    `GET /authorization/roles/:roleId getRole ${read}`,
    `GET /authorization/views getViews ${read}`,
    `GET /oauth/serviceAccounts getServiceAccounts admin`,
    `PATCH /authorization/accounts/:accountId updateAccount admin`,
    `PATCH /authorization/groups/:groupId updateGroup admin`,
    `PATCH /authorization/roles/:roleId updateRole admin`,
    `POST /authorization/accounts createAccount admin`,
    `POST /authorization/groups createGroup admin`,
    `POST /authorization/roles createRole admin`,
    `POST /oauth/serviceAccounts createServiceAccount admin`,
    `PUT /authorization/accounts/:accountId/password setAccountPassword admin`,
  ]);
  assert.ok(routes().every((r) => r.shape === 'plain'));
});

for (const who of ['reader', 'support'] as const) {
  describe(`an account holding Authorization.${who === 'reader' ? 'apiread' : 'support'}`, () => {
    test('gets 403 on every write and on the service accounts, and changes nothing', async () => {
      const before = (await call('GET', `/authorization/accounts/${someAccount}`, core.adminToken)).body;
      for (const route of routes().filter((r) => isWrite(r) || isServiceAccounts(r))) {
        const res = await call(route.method, concrete(route), tokens[who], route.method === 'GET' || route.method === 'DELETE' ? undefined : { inactive: true, name: 'x', password: 'long-enough', username: 'x' });
        assert.equal(res.status, 403, `${route.method} ${route.path}: ${JSON.stringify(res.body)}`);
        assert.equal((res.body as { code: string }).code, 'FORBIDDEN');
      }
      assert.deepEqual((await call('GET', `/authorization/accounts/${someAccount}`, core.adminToken)).body, before);
    });

    test('reads every list and document', async () => {
      for (const route of routes().filter((r) => !isWrite(r) && !isServiceAccounts(r))) {
        const res = await call('GET', concrete(route), tokens[who]);
        // Group and role reads by an account id find nothing, which is still past the permission check.
        assert.ok([200, 404].includes(res.status), `${route.path}: ${res.status}`);
        if (!route.path.includes(':')) assert.equal(res.status, 200, route.path);
      }
    });
  });
}

test('an account without an Authorization role gets 403 on every route of the module', async () => {
  for (const route of routes()) {
    const res = await call(route.method, concrete(route), tokens.nobody);
    assert.equal(res.status, 403, `${route.method} ${route.path}`);
  }
});

test('without credentials every route of the module is a 401', async () => {
  for (const route of routes()) {
    const res = await call(route.method, concrete(route), null);
    assert.equal(res.status, 401, `${route.method} ${route.path}`);
  }
});
