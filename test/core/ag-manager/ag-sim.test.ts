/** The automation-gateway stand-in speaks the documented subset of IAG's API. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startAgSim } from '../../../tools/ag-sim/server.ts';
import type { AgSim } from '../../../tools/ag-sim/server.ts';
import { request } from '../../helpers/core.ts';

let sim: AgSim;
const json = { 'content-type': 'application/json' };
const schema = { type: 'object', properties: { device: { type: 'string' } }, required: ['device'] };

before(async () => {
  sim = await startAgSim({
    username: 'ops',
    password: 'secret',
    scripts: [{ name: 'hello.py', description: 'Says hello', parameters: schema }, { name: 'broken.sh', fail: true }],
    playbooks: [{ name: 'backup' }],
    modules: Array.from({ length: 7 }, (_, i) => ({ name: `mod${i}` })),
  });
});
after(() => sim.close());

async function login(): Promise<string> {
  const res = await request(`${sim.url}/api/v2.0/login`, { method: 'POST', headers: json, body: JSON.stringify({ username: 'ops', password: 'secret' }) });
  assert.equal(res.status, 200);
  return (res.body as { token: string }).token;
}

test('login answers a token; wrong credentials are 401', async () => {
  assert.match(await login(), /^[0-9a-f]{32}$/);
  const bad = await request(`${sim.url}/api/v2.0/login`, { method: 'POST', headers: json, body: JSON.stringify({ username: 'ops', password: 'nope' }) });
  assert.equal(bad.status, 401);
  assert.equal(typeof (bad.body as { message: unknown }).message, 'string');
});

test('calls without a valid token are 401, also after the tokens are revoked', async () => {
  assert.equal((await request(`${sim.url}/api/v2.0/scripts`)).status, 401);
  assert.equal((await request(`${sim.url}/api/v2.0/scripts`, { headers: { authorization: 'not-a-token' } })).status, 401);
  const token = await login();
  assert.equal((await request(`${sim.url}/api/v2.0/scripts`, { headers: { authorization: token } })).status, 200);
  sim.revokeTokens();
  assert.equal((await request(`${sim.url}/api/v2.0/scripts`, { headers: { authorization: token } })).status, 401);
});

test('lists answer data and meta, page by offset and limit', async () => {
  const token = await login();
  const scripts = await request(`${sim.url}/api/v2.0/scripts`, { headers: { authorization: token } });
  assert.deepEqual(scripts.body, {
    data: [
      { name: 'hello.py', description: 'Says hello', parameters: schema },
      { name: 'broken.sh', description: '', parameters: { type: 'object', properties: {} } },
    ],
    meta: { count: 2, query_object: { offset: 0, limit: 50, filter: null, order: 'ascending' }, total_count: 2 },
  });
  const page = await request(`${sim.url}/api/v2.0/modules?offset=5&limit=5`, { headers: { authorization: token } });
  const body = page.body as { data: Array<{ name: string }>; meta: { count: number; total_count: number } };
  assert.deepEqual(body.data.map((m) => m.name), ['mod5', 'mod6']);
  assert.equal(body.meta.count, 2);
  assert.equal(body.meta.total_count, 7);
});

test('execute echoes the args; failures, missing required args and unknown actions are reported', async () => {
  const headers = { ...json, authorization: await login() };
  const ok = await request(`${sim.url}/api/v2.0/scripts/hello.py/execute`, { method: 'POST', headers, body: JSON.stringify({ args: { device: 'r1' } }) });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { status: 'success', return_code: 0, stdout: 'scripts hello.py ran with {"device":"r1"}', stderr: '', args: { device: 'r1' } });
  const play = await request(`${sim.url}/api/v2.0/playbooks/backup/execute`, { method: 'POST', headers, body: JSON.stringify({ args: {}, hosts: ['r1'] }) });
  assert.deepEqual((play.body as { hosts: unknown }).hosts, ['r1']);
  const failed = await request(`${sim.url}/api/v2.0/scripts/broken.sh/execute`, { method: 'POST', headers, body: JSON.stringify({ args: {} }) });
  assert.equal(failed.status, 200);
  assert.equal((failed.body as { status: string }).status, 'failure');
  assert.equal((failed.body as { return_code: number }).return_code, 1);
  const missing = await request(`${sim.url}/api/v2.0/scripts/hello.py/execute`, { method: 'POST', headers, body: JSON.stringify({ args: {} }) });
  assert.equal(missing.status, 400);
  assert.match((missing.body as { message: string }).message, /args\.device/);
  const unknown = await request(`${sim.url}/api/v2.0/scripts/nope/execute`, { method: 'POST', headers, body: '{}' });
  assert.equal(unknown.status, 404);
  const last = sim.calls.at(-1)!;
  assert.equal(last.path, '/api/v2.0/scripts/nope/execute');
  assert.equal(last.authorized, true);
  assert.equal(last.status, 404);
});
