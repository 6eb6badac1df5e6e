/**
 * The authorization lists over HTTP: `{results, total}`, paging, sorting and
 * the generic filters (`equals`+`equalsField`, `contains`, `startsWith`,
 * `memberOf`, `inactive`) on accounts, groups and roles, the method and view
 * catalogs, and the 400s that name the offending parameter.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtInRoles, methodCatalog, viewCatalog } from '../../../core/src/auth/roles.ts';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';

type Doc = Record<string, unknown>;
interface List {
  results: Doc[];
  total: number;
}

let core: RunningCore;
let store: Store;
const ids: Record<string, string> = {};

async function call(method: string, path: string, body?: unknown): Promise<JsonResponse> {
  const res = await core.request(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  assert.doesNotMatch(JSON.stringify(res.body), /passwordHash|secretHash|scrypt\$/, `${method} ${path} leaked a secret`);
  return res;
}

async function list(path: string): Promise<List> {
  const res = await call('GET', path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as List;
}

const names = (l: List, key = 'username'): unknown[] => l.results.map((d) => d[key]);

before(async () => {
  store = await openTestStore();
  core = await startCore(store);
  for (const name of ['net-ops', 'net-eng', 'auditors']) {
    const res = await call('POST', '/authorization/groups', { group: { name, description: `the ${name} team` } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    ids[name] = ((res.body as { data: Doc }).data['_id']) as string;
  }
  assert.equal((await call('PATCH', `/authorization/groups/${ids['net-eng']}`, { memberOf: [{ groupId: ids['net-ops'] }] })).status, 200);
  const people: Array<[string, string[]]> = [['alice', ['net-ops']], ['bob', ['net-ops']], ['carol', ['net-eng']], ['dave', []]];
  for (const [username, groups] of people) {
    const res = await call('POST', '/authorization/accounts', { username, password: `${username}-password`, email: `${username}@example.com`, memberOf: groups.map((g) => ({ groupId: ids[g] })) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    ids[username] = ((res.body as { data: Doc }).data['_id']) as string;
  }
  assert.equal((await call('PATCH', `/authorization/accounts/${ids['carol']}`, { inactive: true })).status, 200);
});
after(async () => {
  await core.close();
  await store.close();
});

describe('accounts', () => {
  test('the list answers results and total, ordered by username, each account in the platform shape without a password hash', async () => {
    const body = await list('/authorization/accounts');
    assert.deepEqual(Object.keys(body).sort(), ['results', 'total']);
    assert.deepEqual(names(body), ['admin', 'alice', 'bob', 'carol', 'dave']);
    assert.equal(body.total, 5);
    const alice = body.results[1]!;
    assert.deepEqual(Object.keys(alice).sort(), ['_id', '_meta', 'assignedRoles', 'email', 'firstname', 'gitTokens', 'inactive', 'loggedIn', 'memberOf', 'provenance', 'username']);
    assert.deepEqual(alice, {
      _id: ids['alice'],
      username: 'alice',
      firstname: 'alice',
      email: 'alice@example.com',
      provenance: 'Local AAA',
      inactive: false,
      loggedIn: false,
      memberOf: [{ groupId: ids['net-ops'], aaaManaged: false }],
      assignedRoles: [],
      gitTokens: {},
      _meta: alice['_meta'],
    });
  });

  const cases: Array<[string, string[], number]> = [
    ['limit=2&skip=1', ['alice', 'bob'], 5],
    ['limit=0', [], 5],
    ['skip=4', ['dave'], 5],
    ['skip=9', [], 5],
    ['sort=username&order=-1&limit=3', ['dave', 'carol', 'bob'], 5],
    ['equals=alice&equalsField=username', ['alice'], 1],
    ['contains=o&containsField=username', ['bob', 'carol'], 2],
    ['startsWith=a&startsWithField=username', ['admin', 'alice'], 2],
    ['equals=bob%40example.com&equalsField=email', ['bob'], 1],
    ['inactive=true', ['carol'], 1],
    ['inactive=false&limit=2', ['admin', 'alice'], 4],
    ['startsWith=a&startsWithField=username&inactive=false&sort=username&order=-1', ['alice', 'admin'], 2],
  ];
  for (const [qs, expected, total] of cases) {
    test(`?${qs} answers ${expected.join(', ') || 'nothing'} of ${total}`, async () => {
      const body = await list(`/authorization/accounts?${qs}`);
      assert.deepEqual(names(body), expected);
      assert.equal(body.total, total);
    });
  }

  test('memberOf=<groupId> lists the direct members of the group only', async () => {
    assert.deepEqual(names(await list(`/authorization/accounts?memberOf=${ids['net-ops']}`)), ['alice', 'bob']);
    assert.deepEqual(names(await list(`/authorization/accounts?memberOf=${ids['net-eng']}`)), ['carol']);
    assert.deepEqual(await list(`/authorization/accounts?memberOf=${ids['auditors']}`), { results: [], total: 0 });
  });

  test('equalsField may name a field inside the memberOf array', async () => {
    assert.deepEqual(names(await list(`/authorization/accounts?equals=${ids['net-eng']}&equalsField=memberOf.groupId`)), ['carol']);
  });

  test('one account is read by id, and an unknown id is a 404', async () => {
    const res = await call('GET', `/authorization/accounts/${ids['dave']}`);
    assert.equal(res.status, 200);
    assert.equal((res.body as Doc)['username'], 'dave');
    assert.equal((res.body as Doc)['passwordHash'], undefined);
    const missing = await call('GET', '/authorization/accounts/0123456789abcdef01234567');
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { message: 'Account 0123456789abcdef01234567 not found', code: 'NOT_FOUND', details: [] });
  });
});

describe('groups', () => {
  test('the list is ordered by name and carries the group shape', async () => {
    const body = await list('/authorization/groups');
    assert.deepEqual(names(body, 'name'), ['admins', 'auditors', 'net-eng', 'net-ops']);
    assert.equal(body.total, 4);
    assert.deepEqual(body.results[2], {
      _id: ids['net-eng'],
      name: 'net-eng',
      description: 'the net-eng team',
      provenance: 'Local AAA',
      memberOf: [{ groupId: ids['net-ops'], aaaManaged: false }],
      assignedRoles: [],
      inactive: false,
      _meta: body.results[2]!['_meta'],
    });
  });

  const cases: Array<[string, string[], number]> = [
    ['limit=1&skip=1', ['auditors'], 4],
    ['startsWith=net-&startsWithField=name', ['net-eng', 'net-ops'], 2],
    ['contains=team&containsField=description&sort=name&order=-1', ['net-ops', 'net-eng', 'auditors'], 3],
    ['equals=Local%20AAA&equalsField=provenance&limit=2', ['admins', 'auditors'], 4],
    ['inactive=true', [], 0],
  ];
  for (const [qs, expected, total] of cases) {
    test(`?${qs} answers ${expected.join(', ') || 'nothing'} of ${total}`, async () => {
      const body = await list(`/authorization/groups?${qs}`);
      assert.deepEqual(names(body, 'name'), expected);
      assert.equal(body.total, total);
    });
  }

  test('memberOf=<groupId> lists the groups directly inside a group', async () => {
    assert.deepEqual(names(await list(`/authorization/groups?memberOf=${ids['net-ops']}`), 'name'), ['net-eng']);
  });
});

describe('roles', () => {
  test('the list pages 25 at a time by default, ordered by name then id, with the total of all roles', async () => {
    // Enough custom roles that the built-in ones and these fill more than one default page.
    for (let i = 0; i < 26; i++) {
      const res = await call('POST', '/authorization/roles', { role: { provenance: 'Custom', name: `custom-${String(i).padStart(2, '0')}` } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const total = builtInRoles(core.core.routes).length + 26;
    const all = await list('/authorization/roles?limit=1000');
    assert.equal(all.total, total);
    const key = (r: Doc): string => `${String(r['name'])}\u0000${String(r['_id'])}`;
    assert.deepEqual(all.results.map(key), all.results.map(key).sort());
    const page = await list('/authorization/roles');
    assert.equal(page.total, total);
    assert.deepEqual(page.results.map((r) => r['_id']), all.results.slice(0, 25).map((r) => r['_id']));
    const last = await list('/authorization/roles?skip=25');
    assert.deepEqual(last.results.map((r) => r['_id']), all.results.slice(25, 50).map((r) => r['_id']));
  });

  test('equals=apiread&equalsField=name finds every built-in apiread role', async () => {
    const body = await list('/authorization/roles?equals=apiread&equalsField=name&limit=1000');
    const expected = builtInRoles(core.core.routes).filter((r) => r.name === 'apiread').map((r) => `${r.provenance}.${r.name}`).sort();
    assert.deepEqual(body.results.map((r) => `${String(r['provenance'])}.${String(r['name'])}`).sort(), expected);
    assert.equal(body.total, expected.length);
    assert.ok(expected.includes('OperationsManager.apiread') && expected.includes('Authorization.apiread'));
  });

  test('equals on provenance with a page limit', async () => {
    const body = await list('/authorization/roles?equals=Authorization&equalsField=provenance&limit=2');
    assert.deepEqual(names(body, 'name'), ['admin', 'apiread']);
    assert.equal(body.total, 3);
  });
});

describe('catalogs', () => {
  test('GET /authorization/methods lists the methods of the mounted routes', async () => {
    const body = await list('/authorization/methods');
    assert.deepEqual(body, { results: methodCatalog(core.core.routes), total: methodCatalog(core.core.routes).length });
    assert.deepEqual(body.results.find((m) => m['name'] === 'createAccount'), {
      provenance: 'Authorization',
      name: 'createAccount',
      route: { path: '/authorization/accounts', verb: 'POST', fullPath: '/authorization/accounts' },
      deprecated: false,
    });
  });

  test('GET /authorization/views lists the views of the mounted routes, and both catalogs page', async () => {
    const views = viewCatalog(core.core.routes);
    assert.deepEqual(await list('/authorization/views'), { results: views, total: views.length });
    assert.ok(views.some((v) => v.provenance === 'Authorization' && v.path === '/authorization/'));
    assert.deepEqual(await list('/authorization/views?limit=1&skip=1'), { results: views.slice(1, 2), total: views.length });
    assert.deepEqual(await list('/authorization/methods?limit=2'), { results: methodCatalog(core.core.routes).slice(0, 2), total: methodCatalog(core.core.routes).length });
  });
});

describe('refused queries', () => {
  const cases: Array<[string, string]> = [
    ['/authorization/accounts?equals=alice', 'equalsField'],
    ['/authorization/accounts?equalsField=username', 'equals'],
    ['/authorization/groups?startsWith=net', 'startsWithField'],
    ['/authorization/accounts?equals=x&equalsField=passwordHash', 'query.equalsField'],
    ['/authorization/accounts?contains=t&containsField=inactive', 'contains'],
    ['/authorization/accounts?sort=email&order=1', 'query.sort'],
    ['/authorization/accounts?sort=username&order=2', 'query.order'],
    ['/authorization/accounts?limit=1001', 'query.limit'],
    ['/authorization/accounts?skip=-1', 'query.skip'],
    ['/authorization/accounts?memberOf=net-ops', 'memberOf'],
    ['/authorization/accounts?inactive=maybe', 'query.inactive'],
    ['/authorization/accounts?foo=1', 'query.foo'],
    ['/authorization/roles?memberOf=0123456789abcdef01234567', 'query.memberOf'],
    ['/authorization/methods?sort=name', 'query.sort'],
  ];
  for (const [path, parameter] of cases) {
    test(`${path} is a 400 naming ${parameter}`, async () => {
      const res = await call('GET', path);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      const body = res.body as { code: string; details: Array<{ parameter: string }> };
      assert.equal(body.code, 'VALIDATION_FAILED');
      assert.deepEqual(body.details.map((d) => d.parameter), [parameter]);
    });
  }
});
