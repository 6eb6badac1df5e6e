/** The gateway manager's routes over real HTTP, against the automation-gateway stand-in. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { newObjectId } from '../../../kernel/store/ids.ts';
import { makeUser, role } from '../../helpers/users.ts';
import { adapterPath, AG_PASSWORD, AG_USER, startGatewayFixture } from './fixture.ts';
import type { GatewayFixture } from './fixture.ts';

let f: GatewayFixture;

before(async () => {
  f = await startGatewayFixture();
});
after(() => f.close());

const LAB_TASKS = ['script:hello.py', 'script:broken.sh', 'playbook:backup.yml', 'module:cisco.ios.ios_command', 'module:ping', 'module:setup'];

function message(body: unknown): string {
  return (body as { message: string }).message;
}

test('discovering an adapter registers its scripts, playbooks and modules as tasks and logs the in-place reload', async () => {
  const before = f.sim.calls.length;
  const res = await f.core.request(adapterPath('lab gateway'));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, { adapterId: 'lab gateway', discovered: { scripts: 2, playbooks: 1, modules: 3 }, tasks: LAB_TASKS });
  const calls = f.sim.calls.slice(before);
  assert.deepEqual(calls.map((c) => `${c.method} ${c.path}`).sort(), ['GET /api/v2.0/modules', 'GET /api/v2.0/playbooks', 'GET /api/v2.0/scripts', 'POST /api/v2.0/login']);
  assert.ok(calls.filter((c) => c.method === 'GET').every((c) => c.authorized && c.query === 'offset=0&limit=100'));
  const log = f.core.logs.find((l) => l.includes('discovered the actions of gateway adapter \\"lab gateway\\"'));
  assert.ok(log, 'a log line names the adapter');
  assert.match(log, /reloaded in place; nothing restarts/);
  assert.ok(!f.core.logs.join('').includes(AG_PASSWORD), 'the password is never logged');
});

test('a fixed-token adapter is discovered without logging in, and a base URL may already end in /api/v2.0', async () => {
  const before = f.sim.calls.length;
  const res = await f.core.request(adapterPath('token gw'));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual((res.body as { discovered: unknown }).discovered, { scripts: 2, playbooks: 1, modules: 3 });
  assert.ok(f.sim.calls.slice(before).every((c) => c.path !== '/api/v2.0/login' && c.authorized));
});

test('lists are read page by page, and a new discovery replaces the adapter tasks', async () => {
  const extra = Array.from({ length: 130 }, (_, i) => ({ name: `gen-${String(i).padStart(3, '0')}.sh` }));
  f.sim.catalog.scripts.push(...extra);
  try {
    const res = await f.core.request(adapterPath('lab gateway'));
    const body = res.body as { discovered: { scripts: number }; tasks: string[] };
    assert.equal(body.discovered.scripts, 132);
    assert.ok(body.tasks.includes('script:gen-129.sh'));
    assert.ok(f.sim.calls.some((c) => c.path === '/api/v2.0/scripts' && c.query === 'offset=100&limit=100'));
  } finally {
    f.sim.catalog.scripts.splice(2);
  }
  const again = await f.core.request(adapterPath('lab gateway'));
  assert.deepEqual((again.body as { tasks: string[] }).tasks, LAB_TASKS);
});

test('unknown, non-gateway and disabled adapters are refused, naming the adapter', async () => {
  const unknown = await f.core.request(adapterPath('no-such-gw'));
  assert.equal(unknown.status, 404);
  assert.equal(message(unknown.body), 'No adapter "no-such-gw" exists');
  const nso = await f.core.request(adapterPath('nso1'));
  assert.equal(nso.status, 400);
  assert.equal(message(nso.body), 'Adapter "nso1" is of type nso, not an automation gateway');
  const off = await f.core.request(adapterPath('gw-off'));
  assert.equal(off.status, 400);
  assert.equal(message(off.body), 'Adapter "gw-off" is disabled');
  assert.equal((await f.core.request(adapterPath('no-such-gw'), { method: 'DELETE' })).status, 404);
  assert.equal((await f.core.request(adapterPath('nso1'), { method: 'DELETE' })).status, 400);
});

test('an unreachable gateway is a 502, a slow one a 504, refused credentials a 502, each naming the adapter', async () => {
  const down = await f.core.request(adapterPath('gw-down'));
  assert.equal(down.status, 502);
  assert.equal((down.body as { code: string }).code, 'UPSTREAM_FAILED');
  assert.equal(message(down.body), `The gateway adapter "gw-down" at ${f.deadUrl} is unreachable (ECONNREFUSED)`);
  const slow = await f.core.request(adapterPath('gw-slow'));
  assert.equal(slow.status, 504);
  assert.match(message(slow.body), /gateway adapter "gw-slow" at .* did not answer within 300 ms/);
  const refused = await f.core.request(adapterPath('gw-badcreds'));
  assert.equal(refused.status, 502);
  assert.match(message(refused.body), /^The gateway adapter "gw-badcreds" at .* refused the adapter's credentials \(401 to POST \/login\)/);
  assert.ok(!JSON.stringify([down.body, slow.body, refused.body]).includes('wrong'), 'no credential in an answer');
});

test('discoverAll discovers every enabled gateway and reports the ones that failed', async () => {
  const res = await f.core.request('/ag-manager/actions');
  assert.equal(res.status, 200);
  const body = res.body as { results: Array<{ adapterId: string; error?: { status: number } }>; total: number };
  assert.equal(body.total, 5);
  const byId = new Map(body.results.map((r) => [r.adapterId, r]));
  assert.equal(byId.get('lab gateway')?.error, undefined);
  assert.equal(byId.get('token gw')?.error, undefined);
  assert.equal(byId.get('gw-down')?.error?.status, 502);
  assert.equal(byId.get('gw-badcreds')?.error?.status, 502);
  assert.equal(byId.get('gw-slow')?.error?.status, 504);
  assert.ok(!byId.has('gw-off') && !byId.has('nso1'));
});

test('undiscovering one adapter, then all, answers what was removed', async () => {
  await f.core.request(adapterPath('lab gateway'));
  await f.core.request(adapterPath('token gw'));
  const one = await f.core.request(adapterPath('lab gateway'), { method: 'DELETE' });
  assert.equal(one.status, 200);
  assert.deepEqual(one.body, { adapterId: 'lab gateway', removed: 6, tasks: LAB_TASKS });
  const none = await f.core.request(adapterPath('lab gateway'), { method: 'DELETE' });
  assert.deepEqual(none.body, { adapterId: 'lab gateway', removed: 0, tasks: [] });
  const all = await f.core.request('/ag-manager/actions', { method: 'DELETE' });
  assert.equal(all.status, 200);
  assert.deepEqual(all.body, { results: [{ adapterId: 'token gw', removed: 6, tasks: LAB_TASKS }], total: 1 });
  assert.ok(f.core.logs.some((l) => l.includes('removed the discovered actions of every gateway adapter')));
});

test('getClusterAdapters lists the gateway adapters of this instance, without credentials', async () => {
  const res = await f.core.request('/ag-manager/getClusterAdapters');
  assert.equal(res.status, 200);
  const body = res.body as { results: Array<{ id: string; type: string; baseUrl: string; instance: string }>; total: number };
  assert.deepEqual(body.results.map((r) => r.id), ['lab gateway', 'token gw', 'gw-down', 'gw-badcreds', 'gw-slow', 'gw-off']);
  assert.equal(body.total, 6);
  assert.deepEqual(body.results[0], { id: 'lab gateway', type: 'gateway', baseUrl: f.sim.url, instance: body.results[0]!.instance });
  assert.match(body.results[0]!.instance, /^.+:\d+$/);
  assert.ok(!JSON.stringify(body).includes(AG_PASSWORD) && !JSON.stringify(body).includes('token":'));
});

test('only administrators of AGManager may call the gateway manager', async () => {
  const nobody = await makeUser(f.core, 'no-roles');
  const agAdmin = await makeUser(f.core, 'ag-admin', { roles: [role('AGManager', 'admin')] });
  const calls: Array<[string, string]> = [
    ['GET', adapterPath('lab gateway')],
    ['GET', '/ag-manager/actions'],
    ['DELETE', adapterPath('lab gateway')],
    ['DELETE', '/ag-manager/actions'],
    ['GET', '/ag-manager/getClusterAdapters'],
  ];
  for (const [method, path] of calls) {
    assert.equal((await f.core.request(path, { method, token: null })).status, 401, `${method} ${path} without credentials`);
    const refused = await f.core.request(path, { method, token: nobody.token });
    assert.equal(refused.status, 403, `${method} ${path} without the role`);
    assert.match(message(refused.body), /no role that allows AGManager\./);
  }
  assert.equal((await f.core.request('/ag-manager/getClusterAdapters', { token: agAdmin.token })).status, 200);
  assert.equal((await f.core.request(adapterPath('lab gateway'), { token: agAdmin.token })).status, 200);
});

test('a gateway adapter stored in the adapters collection is listed and discovered like a configured one', async () => {
  await f.core.store.collection('adapters').insertOne({ _id: newObjectId(), name: 'stored gw', type: 'gateway', baseUrl: f.sim.url, credentials: { username: AG_USER, password: AG_PASSWORD } });
  const listed = await f.core.request('/ag-manager/getClusterAdapters');
  assert.deepEqual((listed.body as { results: Array<{ id: string }> }).results.at(-1)?.id, 'stored gw');
  const res = await f.core.request(adapterPath('stored gw'));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual((res.body as { tasks: string[] }).tasks, LAB_TASKS);
});

test('an expired gateway session is renewed by one fresh login; a refused fixed token is a 502', async () => {
  f.sim.revokeTokens();
  const before = f.sim.calls.length;
  const res = await f.core.request(adapterPath('lab gateway'));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const calls = f.sim.calls.slice(before);
  assert.equal(calls.filter((c) => c.path === '/api/v2.0/login').length, 1);
  assert.ok(calls.some((c) => c.status === 401));
  const fixed = await f.core.request(adapterPath('token gw'));
  assert.equal(fixed.status, 502);
  assert.match(message(fixed.body), /^The gateway adapter "token gw" at .* refused the adapter's credentials \(401 to GET \/(scripts|playbooks|modules)\)/);
});
