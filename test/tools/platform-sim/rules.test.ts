/**
 * The platform stand-in over HTTPS in front of the real core, both on
 * loopback: each rule it enforces, shown against what reached the core.
 * Certificates are made with openssl; without openssl the suite says it
 * skipped and why.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD, startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { makeGroup, makeUser, role } from '../../helpers/users.ts';
import { simCall } from '../../../tools/platform-sim/client.ts';
import type { SimAnswer, SimCall } from '../../../tools/platform-sim/client.ts';
import { startPlatformSim } from '../../../tools/platform-sim/server.ts';
import type { PlatformSim } from '../../../tools/platform-sim/server.ts';
import { opensslMissing } from '../../../tools/platform-sim/tls.ts';

const missing = opensslMissing();
const PAGE_CAP = 2;

describe('platform-sim', { skip: missing === null ? false : `skipped: ${missing}; the stand-in serves HTTPS with certificates made by openssl` }, () => {
  let core: RunningCore;
  let sim: PlatformSim;
  let token: string;
  let groupId: string;

  const call = (path: string, init: SimCall = {}): Promise<SimAnswer> => simCall(`${sim.url}${path}`, { ca: sim.ca, ...init });
  const withToken = (path: string): string => `${path}${path.includes('?') ? '&' : '?'}token=${token}`;
  const last = (): PlatformSim['requests'][number] => sim.requests.at(-1)!;

  before(async () => {
    core = await startCore(await openTestStore());
    sim = await startPlatformSim({ coreUrl: core.url, pageCap: PAGE_CAP, plainPort: 0 });
    groupId = await makeGroup(core, 'net-ops');
    await makeUser(core, 'member-1', { groups: [groupId] });
    await makeUser(core, 'outsider-1');
    await makeUser(core, 'outsider-2');
    const login = await call('/login', { method: 'POST', body: { user: { username: 'admin', password: ADMIN_PASSWORD } } });
    assert.equal(login.status, 200, login.text);
    token = login.text;
  });
  after(async () => {
    await sim?.close();
    await core?.close();
  });

  test('serves HTTPS with a certificate from its own CA, and answers a login token as bare text', async () => {
    assert.match(sim.url, /^https:\/\//);
    assert.match(token, /^[^"\s]+$/, 'the platform answers the token bare, not as a JSON string');
    await assert.rejects(simCall(`${sim.url}/health/status`), /self[- ]signed|unable to verify|certificate/i);
  });

  test('refuses a route the platform does not serve, before the core sees it', async () => {
    for (const [method, path] of [['GET', '/operations-manager/job/66d3a1c2e4b0f1a2b3c4d5e6'], ['POST', '/authorization/accounts'], ['PUT', '/authorization/accounts/66d3a1c2e4b0f1a2b3c4d5e6/password'], ['POST', '/orchestrator_manager/restQuery/nso'], ['GET', '/openapi.json']] as const) {
      const res = await call(withToken(path), { method, ...(method === 'GET' ? {} : { body: {} }) });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.headers['x-platform-sim'], 'refused');
      assert.equal(last().forwarded, null, `${method} ${path} never reached the core`);
    }
  });

  test('serves /help/openapi, which our core names otherwise, and passes /nso_manager on as it is', async () => {
    const doc = await call(withToken('/help/openapi'));
    assert.equal(doc.status, 200);
    assert.match(String((doc.json as { openapi: string }).openapi), /^3\./);
    assert.equal(last().forwarded, `GET /openapi.json?token=${token}`);
    const relayed = await call(withToken('/nso_manager/restQuery/nso'), { method: 'POST', body: { params: { path: '/restconf/data' } } });
    assert.equal(last().forwarded, `POST /nso_manager/restQuery/nso?token=${token}`);
    assert.notEqual(relayed.headers['x-platform-sim'], 'refused');
    assert.doesNotMatch(relayed.text, /No operation at/, 'the core serves /nso_manager itself (here it refuses the body)');
  });

  test('takes a login token as ?token= or the token cookie, refuses it as Bearer; Bearer serves OAuth client tokens', async () => {
    assert.equal((await call(withToken('/whoami'))).status, 200);
    assert.equal(last().credentials, 'query');
    assert.equal((await call('/whoami', { headers: { cookie: `token=${token}` } })).status, 200);
    assert.equal(last().credentials, 'cookie');
    const bearer = await call('/whoami', { headers: { authorization: `Bearer ${token}` } });
    assert.equal(bearer.status, 401);
    assert.match(bearer.text, /Bearer is for OAuth client tokens/);
    assert.equal(last().forwarded, null);
    const account = await core.request('/oauth/serviceAccounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'sim-client', assignedRoles: [{ roleId: role('Authorization', 'apiread') }] }) });
    assert.equal(account.status, 200, JSON.stringify(account.body));
    const { client_id, client_secret } = (account.body as { data: { client_id: string; client_secret: string } }).data;
    const issued = await call('/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=${client_id}&client_secret=${client_secret}` });
    assert.equal(issued.status, 200, issued.text);
    const oauth = (issued.json as { access_token: string }).access_token;
    assert.equal((await call('/whoami', { headers: { authorization: `Bearer ${oauth}` } })).status, 200);
    assert.equal(last().credentials, 'bearer');
  });

  test('takes Basic over TLS and refuses it over plain HTTP', async () => {
    const basic = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
    assert.equal((await call('/whoami', { headers: { authorization: basic } })).status, 200);
    const plain = await simCall(`${sim.plainUrl!}/whoami`, { headers: { authorization: basic } });
    assert.equal(plain.status, 401);
    assert.match(plain.text, /only available over TLS/);
  });

  test('ignores a filter it does not know and answers everything; its documented filters filter', async () => {
    const all = (await call(withToken('/authorization/accounts'))).json as { total: number };
    const memberOf = await call(withToken(`/authorization/accounts?memberOf=${groupId}`));
    assert.equal((memberOf.json as { total: number }).total, all.total, 'memberOf is not a platform filter: every account comes back');
    assert.deepEqual(last().ignored, ['memberOf']);
    const equals = await call(withToken('/authorization/accounts?equals=admin&equalsField=username'));
    assert.equal((equals.json as { total: number }).total, all.total);
    const members = await call(withToken(`/authorization/accounts?groupId=${groupId}`));
    assert.deepEqual((members.json as { results: Array<{ username: string }> }).results.map((a) => a.username), ['member-1']);
    assert.match(last().forwarded!, new RegExp(`^GET /authorization/accounts\\?groupId=${groupId}&`), 'the platform filter reaches the core as it came');
    const named = await call(withToken('/authorization/accounts?multiEquals[username]=outsider-2'));
    assert.equal((named.json as { total: number }).total, 1);
    const two = await call(withToken('/authorization/accounts?multiStartsWith[username]=outsider&multiStartsWith[firstname]=outsider-1'));
    assert.deepEqual((two.json as { results: Array<{ username: string }> }).results.map((a) => a.username), ['outsider-1'], 'several filters of one operator all apply');
    const jobs = await call(withToken('/operations-manager/jobs?memberOf=x&equals[status]=complete'));
    assert.equal(jobs.status, 200);
    assert.deepEqual(last().ignored, ['memberOf']);
  });

  test("the health lists answer the platform's lookup through it, an unknown filter dropped", async () => {
    const apps = await call(withToken('/health/applications?equals=OperationsManager&equalsField=id&foo=bar'));
    assert.equal(apps.status, 200, apps.text);
    assert.deepEqual((apps.json as { results: Array<{ id: string; type: string }> }).results.map((a) => [a.id, a.type]), [['OperationsManager', 'Application']]);
    assert.deepEqual(last().ignored, ['foo']);
    const adapters = await call(withToken('/health/adapters?equals=none&equalsField=id'));
    assert.deepEqual(adapters.json, { results: [], total: 0 });
  });

  test('gives role ids that are not ours, and maps them both ways', async () => {
    const direct = (await core.request('/whoami')).body as { roles: string[] };
    const viaSim = (await call(withToken('/whoami'))).json as { roles: string[] };
    assert.equal(viaSim.roles.length, direct.roles.length);
    for (const id of viaSim.roles) {
      assert.match(id, /^[0-9a-f]{24}$/);
      assert.ok(!direct.roles.includes(id), 'no derived id leaks through');
    }
    const admin = role('Authorization', 'admin');
    assert.equal((await call(withToken(`/authorization/roles/${admin}`))).status, 404, 'a derived id names no role on the platform');
    const listed = (await call(withToken('/authorization/roles?multiEquals[name]=admin&multiStartsWith[provenance]=Authorization'))).json as { results: Array<{ _id: string; provenance: string }> };
    const simAdmin = listed.results.find((r) => r.provenance === 'Authorization')!._id;
    assert.notEqual(simAdmin, admin);
    const one = await call(withToken(`/authorization/roles/${simAdmin}`));
    assert.equal((one.json as { _id: string })._id, simAdmin);
    assert.equal(last().forwarded, `GET /authorization/roles/${admin}?token=${token}`);
    const user = await makeUser(core, 'role-target');
    const patched = await call(withToken(`/authorization/accounts/${user.id}`), { method: 'PATCH', body: { updates: { assignedRoles: [{ roleId: simAdmin }] } } });
    assert.equal(patched.status, 200, patched.text);
    const stored = await core.store.collection('accounts').findById(user.id);
    assert.deepEqual((stored!['assignedRoles'] as Array<{ roleId: string }>).map((r) => r.roleId), [admin]);
    const unknown = await call(withToken(`/authorization/accounts/${user.id}`), { method: 'PATCH', body: { updates: { assignedRoles: [{ roleId: admin }] } } });
    assert.equal(unknown.status, 400);
    const services = (await call(withToken('/oauth/serviceAccounts'))).text;
    assert.match(services, /"roleId":"[0-9a-f]{24}"/, 'the list names roles');
    assert.ok(!services.includes(role('Authorization', 'apiread')), 'service accounts show the platform role ids too');
  });

  test('takes only the platform bodies: wrapped creates and patches, fromTask; refuses the bare forms', async () => {
    const bareGroup = await call(withToken('/authorization/groups'), { method: 'POST', body: { name: 'bare', description: 'x' } });
    assert.equal(bareGroup.status, 400);
    const group = await call(withToken('/authorization/groups'), { method: 'POST', body: { group: { name: 'wrapped', description: 'x', memberOf: [], assignedRoles: [] } } });
    assert.ok(group.status < 300, group.text);
    const id = (group.json as { data?: { _id: string }; _id?: string }).data?._id ?? (group.json as { _id: string })._id;
    assert.equal((await call(withToken(`/authorization/groups/${id}`), { method: 'PATCH', body: { description: 'bare' } })).status, 400);
    assert.equal((await call(withToken(`/authorization/groups/${id}`), { method: 'PATCH', body: { updates: { description: 'wrapped' } } })).status, 200);
    const roles = (await call(withToken('/authorization/roles?limit=1'))).json as { results: Array<{ _id: string }> };
    const renamed = await call(withToken(`/authorization/roles/${roles.results[0]!._id}`), { method: 'PATCH', body: { updates: { name: 'renamed' } } });
    assert.equal(renamed.status, 400);
    assert.match(renamed.text, /updates\.name cannot be changed in the platform's form/, "the core refuses it, as the platform does");
    assert.notEqual(last().forwarded, null);
    const polluted = await call(withToken(`/authorization/groups/${id}`), { method: 'PATCH', body: '{"updates": {"__proto__": {"admin": true}, "description": "x"}}' });
    assert.equal(polluted.status, 400, 'a __proto__ member is refused, not rebuilt into a prototype');
    assert.equal(last().forwarded, null);
    const job = '66d3a1c2e4b0f1a2b3c4d5e6';
    assert.equal((await call(withToken(`/operations-manager/jobs/${job}/continue`), { method: 'POST', body: { taskId: 'a1' } })).status, 400);
    assert.equal(last().forwarded, null);
    await call(withToken(`/operations-manager/jobs/${job}/continue`), { method: 'POST', body: { fromTask: 'a1' } });
    assert.equal(last().forwarded, `POST /operations-manager/jobs/${job}/continue?token=${token}`);
  });

  test('pages with its own cap: a larger limit is lowered without a word, and total still counts everything', async () => {
    const accounts = (await call(withToken('/authorization/accounts?limit=100'))).json as { results: unknown[]; total: number };
    assert.equal(accounts.results.length, PAGE_CAP);
    assert.ok(accounts.total > PAGE_CAP);
    assert.match(last().forwarded!, new RegExp(`[?&]limit=${PAGE_CAP}(&|$)`), 'the core was asked for the capped page');
    const roles = (await call(withToken('/authorization/roles'))).json as { results: unknown[]; total: number };
    assert.equal(roles.results.length, PAGE_CAP, 'a list without limit is capped too when the cap is below the default page');
  });
});
