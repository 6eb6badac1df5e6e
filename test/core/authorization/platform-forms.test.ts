/**
 * The authorization routes in the real platform's forms beside the
 * interface's: the lists' documented filters (`multiEquals[f]`,
 * `multiContains[f]`, `multiStartsWith[f]`, and `groupId` on accounts;
 * Itential's API reference, get-accounts, get-groups, get-roles), and the
 * wrapped bodies (`{updates}`, `{group}`, `{role}`; update-role: a role's
 * name and provenance cannot be patched there). An unknown filter stays a
 * 400 here: our core never answers a filter it did not apply.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { client } from './client.ts';
import type { Doc } from './client.ts';

let core: RunningCore;
const { call, written } = client(() => core);
const ids: Record<string, string> = {};

interface List {
  results: Doc[];
  total: number;
}

async function list(path: string): Promise<List> {
  const res = await call('GET', path);
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
  return res.body as List;
}

const names = (l: List, key = 'username'): unknown[] => l.results.map((d) => d[key]);

function parametersOf(res: JsonResponse): string[] {
  return ((res.body as { details?: Array<{ parameter: string }> }).details ?? []).map((d) => d.parameter.replace(/^query\./, ''));
}

before(async () => {
  core = await startCore(await openTestStore());
  for (const name of ['net-ops', 'net-eng', 'auditors']) ids[name] = (await written('POST', '/authorization/groups', { group: { name, description: `the ${name} team` } })).data['_id'] as string;
  const people: Array<[string, string, string[]]> = [
    ['alice', 'alice@ops.example.com', ['net-ops']],
    ['alan', 'alan@eng.example.com', ['net-ops', 'net-eng']],
    ['bob', 'bob@ops.example.com', ['net-eng']],
    ['dave', 'dave@example.org', []],
  ];
  for (const [username, email, groups] of people) {
    ids[username] = (await written('POST', '/authorization/accounts', { username, password: `${username}-password`, email, memberOf: groups.map((g) => ({ groupId: ids[g] })) })).data['_id'] as string;
  }
  for (const name of ['net-reader', 'net-writer']) {
    ids[name] = (await written('POST', '/authorization/roles', { role: { provenance: 'Custom', name, description: `${name} role` } })).data['_id'] as string;
  }
});
after(() => core.close());

describe("the lists' documented filters", () => {
  test('multiEquals, multiContains and multiStartsWith filter accounts on the fields the platform names', async () => {
    assert.deepEqual(names(await list('/authorization/accounts?multiEquals[username]=alice')), ['alice']);
    assert.deepEqual(names(await list('/authorization/accounts?multiContains[email]=ops.example')), ['alice', 'bob']);
    assert.deepEqual(names(await list('/authorization/accounts?multiStartsWith[username]=al')), ['alan', 'alice']);
    assert.deepEqual(names(await list('/authorization/accounts?multiEquals[provenance]=Local%20AAA&multiStartsWith[firstname]=da')), ['dave']);
  });

  test('several fields and operators at once all apply, with the generic filters too', async () => {
    const both = await list('/authorization/accounts?multiStartsWith[username]=al&multiContains[email]=eng');
    assert.deepEqual(names(both), ['alan']);
    assert.equal(both.total, 1);
    assert.deepEqual(names(await list('/authorization/accounts?multiStartsWith[username]=al&equals=alice&equalsField=username')), ['alice']);
  });

  test('groupId lists the direct members of a group, as memberOf does', async () => {
    assert.deepEqual(names(await list(`/authorization/accounts?groupId=${ids['net-ops']}`)), ['alan', 'alice']);
    assert.deepEqual(names(await list(`/authorization/accounts?groupId=${ids['net-eng']}&multiStartsWith[username]=b`)), ['bob']);
    assert.deepEqual(names(await list(`/authorization/accounts?memberOf=${ids['net-eng']}`)), ['alan', 'bob']);
    assert.deepEqual((await list(`/authorization/accounts?groupId=${ids['auditors']}`)).results, []);
  });

  test('groups and roles take the bracket filters on name, description and provenance', async () => {
    assert.deepEqual(names(await list('/authorization/groups?multiStartsWith[name]=net'), 'name'), ['net-eng', 'net-ops']);
    assert.deepEqual(names(await list('/authorization/groups?multiContains[description]=ops%20team'), 'name'), ['net-ops']);
    assert.deepEqual(names(await list('/authorization/roles?multiEquals[provenance]=Custom'), 'name'), ['net-reader', 'net-writer']);
    assert.deepEqual(names(await list('/authorization/roles?multiEquals[provenance]=Custom&multiEquals[name]=net-writer'), 'name'), ['net-writer']);
    assert.deepEqual(names(await list('/authorization/roles?multiContains[description]=reader'), 'name'), ['net-reader']);
  });

  test('the interface form still filters: equals with equalsField, memberOf and inactive', async () => {
    assert.deepEqual(names(await list('/authorization/accounts?equals=bob&equalsField=username')), ['bob']);
    assert.deepEqual(names(await list('/authorization/groups?startsWith=aud&startsWithField=name'), 'name'), ['auditors']);
    assert.equal((await list('/authorization/accounts?inactive=true')).total, 0);
  });

  test('an unknown filter, field or repeated filter is a 400 naming it, never the whole list', async () => {
    const cases: Array<[path: string, parameter: string]> = [
      // Secrets are not fields: a filter on one would be an oracle for it.
      ['/authorization/accounts?multiStartsWith[passwordHash]=scrypt', 'multiStartsWith[passwordHash]'],
      ['/authorization/accounts?multiEquals[__proto__]=x', 'multiEquals[__proto__]'],
      ['/authorization/accounts?multiEquals[constructor]=x', 'multiEquals[constructor]'],
      ['/authorization/accounts?multiEquals[memberOf.groupId]=x', 'multiEquals[memberOf.groupId]'],
      ['/authorization/accounts?multiIn[username]=alice', 'multiIn[username]'],
      ['/authorization/accounts?multiEquals=alice', 'multiEquals'],
      ['/authorization/accounts?multiEquals[username]=alice&multiEquals[username]=bob', 'multiEquals[username]'],
      ['/authorization/accounts?isServiceAccount=true', 'isServiceAccount'],
      // groupId is the accounts' filter; the groups and roles lists do not document it.
      [`/authorization/groups?groupId=${ids['net-ops'] ?? ''}`, 'groupId'],
      ['/authorization/roles?groupId=x', 'groupId'],
      ['/authorization/roles?multiEquals[username]=alice', 'multiEquals[username]'],
      ['/authorization/groups?multiEquals[email]=x', 'multiEquals[email]'],
    ];
    for (const [path, parameter] of cases) {
      // Not through call(): its leak check would take the echoed parameter name for a leaked hash.
      const res = await core.request(path);
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(res.body)}`);
      assert.ok(parametersOf(res).includes(parameter), `${path} names ${parameter}: ${JSON.stringify(res.body)}`);
    }
  });
});

describe('wrapped bodies beside bare ones', () => {
  test('a group is created wrapped or bare, and patched wrapped or bare', async () => {
    const wrapped = await written('POST', '/authorization/groups', { group: { name: 'wrapped-group', description: 'made wrapped' } });
    const bare = await written('POST', '/authorization/groups', { name: 'bare-group', description: 'made bare' });
    assert.equal(wrapped.data['description'], 'made wrapped');
    assert.equal(bare.data['description'], 'made bare');
    const id = wrapped.data['_id'] as string;
    assert.equal((await written('PATCH', `/authorization/groups/${id}`, { updates: { description: 'patched wrapped' } })).data['description'], 'patched wrapped');
    assert.equal((await written('PATCH', `/authorization/groups/${id}`, { description: 'patched bare' })).data['description'], 'patched bare');
  });

  test('an account is patched wrapped or bare', async () => {
    const id = ids['dave']!;
    assert.equal((await written('PATCH', `/authorization/accounts/${id}`, { updates: { firstname: 'David' } })).data['firstname'], 'David');
    assert.equal((await written('PATCH', `/authorization/accounts/${id}`, { firstname: 'Dave' })).data['firstname'], 'Dave');
  });

  test("a role is created wrapped or bare; its description is patched in either form, its name and provenance only bare", async () => {
    const bare = await written('POST', '/authorization/roles', { provenance: 'Custom', name: 'bare-role', description: 'made bare' });
    const id = bare.data['_id'] as string;
    assert.equal((await written('PATCH', `/authorization/roles/${id}`, { updates: { description: 'patched wrapped' } })).data['description'], 'patched wrapped');
    for (const field of ['name', 'provenance']) {
      const refused = await call('PATCH', `/authorization/roles/${id}`, { updates: { [field]: 'Renamed' } });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match((refused.body as { message: string }).message, new RegExp(`updates\\.${field} cannot be changed in the platform's form`));
    }
    const withOthers = await call('PATCH', `/authorization/roles/${id}`, { updates: { description: 'and a rename', name: 'Renamed' } });
    assert.equal(withOthers.status, 400, 'nothing of a refused body is written');
    const unchanged = (await call('GET', `/authorization/roles/${id}`)).body as Doc;
    assert.deepEqual([unchanged['name'], unchanged['description']], ['bare-role', 'patched wrapped']);
    const renamed = await written('PATCH', `/authorization/roles/${id}`, { name: 'renamed-role', description: 'renamed bare' });
    assert.deepEqual([renamed.data['name'], renamed.data['provenance']], ['renamed-role', 'Custom']);
  });

  test('a body that mixes the forms, or wraps nothing, is a 400', async () => {
    const id = ids['net-reader']!;
    assert.equal((await call('PATCH', `/authorization/roles/${id}`, { updates: { description: 'x' }, description: 'y' })).status, 400);
    assert.equal((await call('PATCH', `/authorization/roles/${id}`, { updates: {} })).status, 400);
    assert.equal((await call('POST', '/authorization/groups', { group: { name: 'mixed' }, name: 'mixed' })).status, 400);
    assert.equal((await call('POST', '/authorization/roles', { role: 'not an object' })).status, 400);
  });
});
