/**
 * `/profiles` over HTTP on the real core: list, get, create, update, delete,
 * import, export and the active switch, with their answers, refusals and roles.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { makeUser, role } from '../../helpers/users.ts';

type Json = Record<string, unknown>;
let core: RunningCore;
before(async () => {
  core = await startCore((await openTestStore()));
});
after(() => core.close());

function send(method: string, path: string, body?: unknown, token?: string): Promise<JsonResponse> {
  return core.request(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    ...(token === undefined ? {} : { token }),
  });
}

const lab = { id: 'lab', description: 'Lab profile', type: 'profile', services: ['WorkFlowEngine'], uiProps: { description: 'UI' }, expressProps: { access: { http: { enable: true, port: 3000 } } }, alarmProps: [{ ip: '10.0.0.9', port: 162, community: 'public', type: 'snmp', properties: {} }] };
const prod = { id: 'prod', description: 'Production', loggerProps: { log_level: 'info' } };

test('the first profile created becomes the active one; list and get answer {metadata, profile}', async () => {
  const created = await send('POST', '/profiles', { properties: lab });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.deepEqual(created.body, { status: 'OK', message: 'Profile lab created', data: lab });
  assert.equal((await send('POST', '/profiles', { properties: prod })).status, 200);
  assert.deepEqual((await send('GET', '/profiles')).body, {
    results: [
      { metadata: { isActive: true, activeSync: true }, profile: lab },
      { metadata: { isActive: false, activeSync: true }, profile: prod },
    ],
    total: 2,
  });
  assert.deepEqual((await send('GET', '/profiles/prod')).body, { metadata: { isActive: false, activeSync: true }, profile: prod });
});

test('create refuses a taken id (409), a missing id, a section that is not an object and the store\'s own fields', async () => {
  const taken = await send('POST', '/profiles', { properties: { id: 'lab' } });
  assert.equal(taken.status, 409);
  assert.equal((taken.body as Json)['code'], 'CONFLICT');
  for (const properties of [{ description: 'no id' }, { id: 'x', uiProps: 'big' }, { id: 'y', isActive: true }, { id: 'z', _id: 'other' }, { id: 'a/b' }]) {
    const res = await send('POST', '/profiles', { properties });
    assert.equal(res.status, 400, JSON.stringify(properties));
  }
  assert.equal((await send('POST', '/profiles', { id: 'bare' })).status, 400, 'create takes {properties}');
  assert.equal(((await send('GET', '/profiles')).body as { total: number }).total, 2, 'nothing was stored');
});

test('update replaces the sections given and keeps the others; the id cannot change; unknown ids are 404', async () => {
  const res = await send('PUT', '/profiles/prod', { properties: { loggerProps: { log_level: 'debug' }, description: 'Production (debug)' } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual((res.body as Json)['data'], { id: 'prod', description: 'Production (debug)', loggerProps: { log_level: 'debug' } });
  assert.equal((await send('PUT', '/profiles/prod', { properties: { id: 'other' } })).status, 400);
  assert.equal((await send('PUT', '/profiles/nope', { properties: { description: 'x' } })).status, 404);
  assert.equal((await send('GET', '/profiles/nope')).status, 404);
});

test('switching the active profile moves the flag; the active one cannot be deleted', async () => {
  const res = await send('PUT', '/profiles/prod/active');
  assert.deepEqual(res.body, { status: 'OK', message: 'Profile prod is now the active profile' });
  const list = (await send('GET', '/profiles')).body as { results: Array<{ metadata: { isActive: boolean }; profile: { id: string } }> };
  assert.deepEqual(list.results.map((r) => [r.profile.id, r.metadata.isActive]), [['lab', false], ['prod', true]]);
  const refused = await send('DELETE', '/profiles/prod');
  assert.equal(refused.status, 400);
  assert.match((refused.body as { message: string }).message, /active profile/);
  assert.equal((await send('PUT', '/profiles/nope/active')).status, 404);
});

test('export, delete, then import of the export gives the same profile back', async () => {
  const exported = await send('GET', '/profiles/lab/export');
  assert.deepEqual(exported.body, lab);
  assert.deepEqual((await send('DELETE', '/profiles/lab')).body, { status: 'OK', message: 'Profile lab deleted', data: lab });
  assert.equal((await send('GET', '/profiles/lab')).status, 404);
  const imported = await send('POST', '/profiles/import', exported.body);
  assert.equal(imported.status, 200, JSON.stringify(imported.body));
  assert.deepEqual((imported.body as Json)['data'], lab);
  assert.deepEqual((await send('GET', '/profiles/lab')).body, { metadata: { isActive: false, activeSync: true }, profile: lab });
  assert.equal((await send('POST', '/profiles/import', { properties: lab })).status, 409, 'the {properties} form is read too');
});

test('reads need a Profiles role, writes Profiles.admin (one of the Platform.admin replacements)', async () => {
  const reader = await makeUser(core, 'profiles-reader', { roles: [role('Profiles', 'apiread')] });
  const admin = await makeUser(core, 'profiles-admin', { roles: [role('Profiles', 'admin')] });
  const nobody = await makeUser(core, 'profiles-nobody', { roles: [role('OperationsManager', 'admin')] });
  assert.equal((await send('GET', '/profiles', undefined, reader.token)).status, 200);
  assert.equal((await send('GET', '/profiles/lab/export', undefined, reader.token)).status, 200);
  assert.equal((await send('POST', '/profiles', { properties: { id: 'r' } }, reader.token)).status, 403);
  assert.equal((await send('GET', '/profiles', undefined, nobody.token)).status, 403);
  assert.equal((await send('POST', '/profiles', { properties: { id: 'by-admin' } }, admin.token)).status, 200);
  assert.equal((await send('DELETE', '/profiles/by-admin', undefined, admin.token)).status, 200);
});
