/**
 * Issue 26, finding 7: more was shown than needed. The form of a service the
 * caller cannot see was listed and served (the service itself answered
 * 404); every logged-in account, one with no roles included, saw each
 * adapter's base URL and connection errors; and both services listened on
 * every interface, so the core was reachable without its gateway
 * (docs/auth.md, "What non-administrators see"; docs/deployment.md, "Listen
 * addresses").
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_PASSWORD, startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { createWorkflow, newVariable, workflow } from '../helpers/engine.ts';
import { openTestStore, storeEnv } from '../helpers/stores.ts';
import { makeGroup, makeUser, role } from '../helpers/users.ts';
import { freePort } from '../helpers/free-port.ts';

const schema = { type: 'object', properties: { hostname: { type: 'string' } } };
/** Nothing listens on port 1: the adapter's probe fails with a connection error naming host and port. */
const ADAPTERS = JSON.stringify([{ name: 'far orchestrator', type: 'nso', baseUrl: 'http://127.0.0.1:1/restconf', timeoutMs: 500 }]);

let core: RunningCore;
let reader: string;
let member: string;
let nobody: string;
let hidden: { id: string; formId: string };
let open: { id: string; formId: string };
before(async () => {
  core = await startCore(await openTestStore(), { ADAPTERS });
  await createWorkflow(core, workflow('provision', { a1: newVariable('done', true) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  const team = await makeGroup(core, 'network team');
  const add = async (name: string, groups: string[]): Promise<{ id: string; formId: string }> => {
    const res = await core.request('/service_catalog/AddNewService', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ service: { name, workflow: 'provision', groups }, form: { name: `${name} form`, schema } }) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = res.body as { _id: string; formId: string };
    return { id: body._id, formId: body.formId };
  };
  hidden = await add('core routers', [team]);
  open = await add('office switches', []);
  reader = (await makeUser(core, 'catalog reader', { roles: [role('ServiceCatalog', 'apiread')] })).token;
  member = (await makeUser(core, 'team member', { roles: [role('ServiceCatalog', 'apiread')], groups: [team] })).token;
  nobody = (await makeUser(core, 'no roles')).token;
});
after(() => core.close());

function formNames(body: unknown): string[] {
  return (body as { results: Array<{ name: string }> }).results.map((f) => f.name).sort();
}

test("a hidden service's form is neither listed nor served to a caller who cannot see the service", async () => {
  assert.equal((await core.request(`/service_catalog/GetFormId/${hidden.id}`, { token: reader })).status, 404, 'the service is hidden');
  const listed = await core.request('/service_catalog/GetForms', { token: reader });
  assert.equal(listed.status, 200);
  assert.deepEqual(formNames(listed.body), ['office switches form']);
  assert.equal((listed.body as { total: number }).total, 1);
  const served = await core.request(`/service_catalog/GetFormData/${hidden.formId}`, { token: reader });
  assert.equal(served.status, 404, JSON.stringify(served.body));
  assert.equal((await core.request(`/service_catalog/GetFormData/${open.formId}`, { token: reader })).status, 200);
});

test('members of the service\'s group and ServiceCatalog administrators see its form', async () => {
  const listed = await core.request('/service_catalog/GetForms', { token: member });
  assert.deepEqual(formNames(listed.body), ['core routers form', 'office switches form']);
  assert.equal((await core.request(`/service_catalog/GetFormData/${hidden.formId}`, { token: member })).status, 200);
  const admin = await core.request('/service_catalog/GetForms');
  assert.ok(formNames(admin.body).includes('core routers form'));
  assert.equal((await core.request(`/service_catalog/GetFormData/${hidden.formId}`)).status, 200);
});

test('a form whose service was deleted is an administrator\'s only', async () => {
  const orphan = await core.request('/service_catalog/AddNewService', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ service: { name: 'retired', workflow: 'provision' }, form: { name: 'retired form', schema } }) });
  const { _id, formId } = orphan.body as { _id: string; formId: string };
  assert.equal((await core.request(`/service_catalog/GetFormData/${formId}`, { token: reader })).status, 200, 'visible while its open service is');
  assert.equal((await core.request(`/service_catalog/deleteService/${_id}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 200);
  assert.equal((await core.request(`/service_catalog/GetFormData/${formId}`, { token: reader })).status, 404);
  assert.equal((await core.request(`/service_catalog/GetFormData/${formId}`)).status, 200);
});

test('adapter base URLs and connection errors are shown to administrators only', async () => {
  const admin = await core.request('/health/adapters');
  assert.equal(admin.status, 200);
  const [full] = (admin.body as { results: Array<Record<string, unknown>> }).results;
  assert.equal(full!['baseUrl'], 'http://127.0.0.1:1/restconf');
  assert.equal(typeof full!['error'], 'string');
  for (const token of [nobody, reader]) {
    const res = await core.request('/health/adapters', { token });
    assert.equal(res.status, 200);
    const [entry] = (res.body as { results: Array<Record<string, unknown>> }).results;
    assert.deepEqual(Object.keys(entry!).sort(), ['adapterType', 'connection', 'enabled', 'id', 'latencyMs', 'package_id', 'reachable', 'state', 'type', 'version']);
    assert.deepEqual([entry!['id'], entry!['connection'], entry!['reachable']], ['far orchestrator', { state: 'OFFLINE' }, false]);
  }
});

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test("under npm start's defaults the core listens on loopback only, behind the gateway, which listens everywhere", { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'listen-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const [corePort, gatewayPort] = [await freePort(), await freePort()];
  const env = { ...process.env, MONGO_URL: '', CORE_HOST: '', GATEWAY_HOST: '', ...storeEnv(dir), ADMIN_PASSWORD, CORE_PORT: String(corePort), PORT: String(gatewayPort), CORE_URL: `http://127.0.0.1:${corePort}`, LOG_LEVEL: 'info' };
  const start = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--demo-jobs', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => start.once('exit', () => resolve()));
  t.after(async () => {
    start.kill('SIGTERM');
    await exited;
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not bring both services up: ${out}`)), 60_000);
    const read = (chunk: Buffer): void => {
      out += chunk.toString();
      if (/core listening on port/.test(out) && /gateway listening on port/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    start.stdout.on('data', read);
    start.stderr.on('data', read);
  });
  // 127.0.0.5 is this machine too: a listener on every interface accepts it, one on 127.0.0.1 does not.
  assert.equal(await accepts('127.0.0.1', corePort), true, 'the gateway reaches the core');
  assert.equal(await accepts('127.0.0.5', corePort), false, 'the core is not reachable on any other address');
  assert.equal(await accepts('127.0.0.5', gatewayPort), true, 'the gateway is the front door, on every interface');
  const res = await fetch(`http://127.0.0.1:${gatewayPort}/health/server`, { headers: { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` } });
  assert.equal(res.status, 200, 'the gateway serves the core');
});
