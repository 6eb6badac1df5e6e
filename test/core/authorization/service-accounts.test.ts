/**
 * Service accounts for OAuth client credentials: created with a secret shown
 * once, traded for a bearer token at `POST /oauth/token`, listed without
 * their secret hash, and deleted with their tokens.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { client } from './client.ts';

type Doc = Record<string, unknown>;
interface Created {
  status: string;
  message: string;
  data: Doc & { client_id: string; client_secret: string };
}

let core: RunningCore;
const { call } = client(() => core);
let store: Store;
let omApiread: string;


async function create(body: Doc): Promise<Created> {
  const res = await call('POST', '/oauth/serviceAccounts', body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Created;
}

function tokenRequest(clientId: string, secret: string): Promise<JsonResponse> {
  return request(`${core.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
  });
}

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

test('creating a service account answers its client id and the only copy of its secret; the store keeps a hash', async () => {
  const res = await create({ name: 'ci-runner', description: 'CI pipeline' });
  const { client_id, client_secret, _meta } = res.data;
  assert.match(client_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.match(client_secret, /^[0-9a-f]{64}$/);
  assert.deepEqual(res, {
    status: 'OK',
    message: `Successfully created service account ${client_id}. Keep the client secret: it is not shown again.`,
    data: { client_id, name: 'ci-runner', description: 'CI pipeline', provenance: 'Service Account', assignedRoles: [], memberOf: [], inactive: false, _meta, client_secret },
  });
  const stored = await store.collection('service_accounts').findById(client_id);
  assert.match(String(stored?.['secretHash']), /^scrypt\$/);
  assert.ok(!JSON.stringify(stored).includes(client_secret));
});

test('the client credentials give a bearer token that works on /whoami and carries the roles given', async () => {
  const { client_id, client_secret } = (await create({ name: 'reporter', assignedRoles: [{ roleId: omApiread }] })).data;
  const res = await tokenRequest(client_id, client_secret);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as { access_token: string; token_type: string; expires_in: number };
  assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'token_type']);
  assert.equal(body.token_type, 'bearer');
  const whoami = await call('GET', '/whoami', undefined, body.access_token);
  assert.equal(whoami.status, 200);
  assert.deepEqual([(whoami.body as Doc)['id'], (whoami.body as Doc)['username'], (whoami.body as Doc)['roles']], [client_id, 'reporter', [omApiread]]);
  assert.equal((await call('GET', '/operations-manager/jobs', undefined, body.access_token)).status, 200);
  assert.equal((await call('GET', '/authorization/accounts', undefined, body.access_token)).status, 403);
});

test('a wrong secret is refused', async () => {
  const { client_id } = (await create({ name: 'guessed' })).data;
  const res = await tokenRequest(client_id, 'f'.repeat(64));
  assert.equal(res.status, 401);
  assert.equal((res.body as { error: string }).error, 'invalid_client');
});

test('the list shows every service account by name, never a secret or its hash, and pages', async () => {
  const res = await call('GET', '/oauth/serviceAccounts?limit=1000');
  assert.equal(res.status, 200);
  const body = res.body as { results: Doc[]; total: number };
  assert.deepEqual(body.results.map((s) => s['name']), ['ci-runner', 'guessed', 'reporter']);
  assert.equal(body.total, 3);
  for (const s of body.results) assert.deepEqual(Object.keys(s).sort(), ['_meta', 'assignedRoles', 'client_id', 'description', 'inactive', 'memberOf', 'name', 'provenance']);
  const page = (await call('GET', '/oauth/serviceAccounts?limit=1&skip=1')).body as { results: Doc[]; total: number };
  assert.deepEqual([page.results.map((s) => s['name']), page.total], [['guessed'], 3]);
});

test('a duplicate name is a 409, and unknown roles or groups a 400', async () => {
  const dup = await call('POST', '/oauth/serviceAccounts', { name: 'ci-runner' });
  assert.deepEqual([dup.status, dup.body], [409, { message: 'A service account named ci-runner already exists', code: 'CONFLICT', details: [{ parameter: 'name', message: 'is already the name of another service account' }] }]);
  const unknown = await call('POST', '/oauth/serviceAccounts', { name: 'nobody', memberOf: [{ groupId: 'no-group' }] });
  assert.equal(unknown.status, 400);
  assert.equal((unknown.body as { message: string }).message, 'Invalid body: unknown group ids: no-group');
  const noName = await call('POST', '/oauth/serviceAccounts', { description: 'x' });
  assert.deepEqual((noName.body as { details: Array<{ parameter: string }> }).details.map((d) => d.parameter), ['body.name']);
});

test('deleting a service account ends its tokens; deleting it again is a 404', async () => {
  const { client_id, client_secret } = (await create({ name: 'short-lived' })).data;
  const token = ((await tokenRequest(client_id, client_secret)).body as { access_token: string }).access_token;
  assert.equal((await call('GET', '/whoami', undefined, token)).status, 200);
  const res = await call('DELETE', `/oauth/serviceAccounts/${client_id}`);
  assert.deepEqual([res.status, res.body], [200, { status: 'OK', message: `Successfully deleted ${client_id}.` }]);
  assert.equal((await call('GET', '/whoami', undefined, token)).status, 401);
  assert.equal((await tokenRequest(client_id, client_secret)).status, 401);
  const sessions = await store.collection('sessions').search({ where: null, sort: [], skip: 0, limit: 1000 });
  assert.equal(sessions.docs.filter((s) => s['accountId'] === client_id).length, 0);
  const again = await call('DELETE', `/oauth/serviceAccounts/${client_id}`);
  assert.deepEqual([again.status, again.body], [404, { message: `Service account ${client_id} not found`, code: 'NOT_FOUND', details: [] }]);
});

test('a deleted group or role is removed from service accounts too', async () => {
  const group = ((await call('POST', '/authorization/groups', { name: 'robots' })).body as { data: Doc }).data['_id'] as string;
  const { client_id } = (await create({ name: 'robot', memberOf: [{ groupId: group }] })).data;
  assert.equal((await call('DELETE', `/authorization/groups/${group}`)).status, 200);
  assert.deepEqual((await store.collection('service_accounts').findById(client_id))?.['memberOf'], []);
});
