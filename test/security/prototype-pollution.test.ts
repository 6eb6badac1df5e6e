/**
 * Issue 26, finding 1, end to end: an administrator saves a "pairs to an
 * object" transformation and a workflow that keeps its result in a job
 * variable; an account holding only OperationsManager.operations starts it
 * with the pair `{"k": "__proto__", ...}` and then asks the gateway's legacy
 * `jobs/find` for a projection through that key. Before the fix the
 * gateway's projection merged into `Object.prototype` (the gateway runs in
 * this process, so the test sees it), and from then on its calls to the core
 * went to whatever `hostname` was planted, carrying the callers' tokens.
 * Jobs now act for whoever starts them, so the account that plants the key
 * also holds Jst.operations (to run the transformation); the legacy call is
 * made by an account holding only OperationsManager.operations.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { openTestStore } from '../helpers/stores.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { createWorkflow, job, startJob, workflow } from '../helpers/engine.ts';
import { makeUser, role } from '../helpers/users.ts';
import type { TestUser } from '../helpers/users.ts';
import type { Store } from '../../kernel/store/types.ts';

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

let store: Store;
let core: RunningCore;
let gateway: RunningGateway;
let operator: TestUser;
/** An operator who may also run transformations (Jst.operations): jobs act for whoever starts them. */
let transformer: TestUser;
/** A listener on [::1] at the core's port: where the planted `hostname` would send the gateway's calls. */
let impostor: Server;
const impostorSaw: Seen[] = [];
const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

before(async () => {
  store = await openTestStore({ countCacheEntries: 0 });
  core = await startCore(store);
  gateway = await startGateway(core.url);
  const port = Number(new URL(core.url).port);
  impostor = createServer((req, res) => {
    impostorSaw.push({ method: req.method, url: req.url, headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve, reject) => impostor.once('error', reject).listen(port, '::1', () => resolve()));

  const saved = await core.request('/transformations/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Pairs To Object', incoming: [{ $id: 'pairs', type: 'array' }], outgoing: [{ $id: 'obj', type: 'object' }], mapping: '{"obj": $merge(pairs.{k: v})}' }),
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const trId = (saved.body as { _id: string })._id;
  await createWorkflow(core, workflow('Store Settings', {
    a1: { name: 'transformation', app: 'WorkFlowEngine', type: 'automatic', variables: { incoming: { tr_id: trId, variableMap: '$var.job.input', options: { extractOutput: true } }, outgoing: { output: '$var.job.settings' } } },
  }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  operator = await makeUser(core, 'operator', { roles: [role('OperationsManager', 'operations')] });
  transformer = await makeUser(core, 'transformer', { roles: [role('OperationsManager', 'operations'), role('Jst', 'operations')] });
});

after(async () => {
  await gateway?.close();
  await core?.close();
  await store?.close();
  await new Promise((r) => impostor?.close(r));
});

/**
 * Plants `{"region": "eu", "__proto__": value}` in a job's `settings`, made by the saved transformation from
 * the pairs the caller gives (a request body holding `__proto__` itself is refused by the core's parser);
 * answers the job as the core stores it.
 */
async function plant(value: Record<string, unknown>): Promise<{ id: string; settings: Record<string, unknown> }> {
  const id = await startJob(core, 'Store Settings', { input: { pairs: [{ k: 'region', v: 'eu' }, { k: '__proto__', v: value }] } }, transformer.token);
  const done = await job(core, id);
  assert.equal(done.status, 'complete', JSON.stringify(done.error));
  return { id, settings: done.variables['settings'] as Record<string, unknown> };
}

function find(id: string, fields: Record<string, number>): Promise<Response> {
  return fetch(`${gateway.url}/workflow_engine/jobs/find`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${operator.token}` },
    body: JSON.stringify({ query: { _id: id }, options: { fields } }),
  });
}

function assertPrototypeUntouched(): void {
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore);
  const probe: Record<string, unknown> = {};
  assert.equal(probe['hostname'], undefined, 'Object.prototype.hostname was planted');
  assert.equal(probe['x-rt-polluted'], undefined, 'Object.prototype["x-rt-polluted"] was planted');
}

test('a projection through a stored __proto__ key is refused naming the path, and the gateway keeps calling the real core', async () => {
  const { id, settings } = await plant({ hostname: '::1' });
  // Stored as it came: a plain own key, not a prototype.
  assert.deepEqual(Object.keys(settings), ['region', '__proto__']);

  const res = await find(id, { 'variables.settings.region': 1, 'variables.settings.__proto__.hostname': 1 });
  const body = await res.text();
  // Refused with 400 in the legacy string form, naming the path (docs/errors.md).
  assert.equal(res.status, 400, body);
  assert.match(body, /variables\.settings\.__proto__\.hostname/);
  assert.match(body, /prototype/);
  assertPrototypeUntouched();

  // The next calls still reach the core on 127.0.0.1, not a listener on [::1] at its port.
  const next = await find(id, { 'variables.settings.region': 1 });
  assert.equal(next.status, 200, await next.clone().text());
  assert.deepEqual(await next.json(), [{ _id: id, variables: { settings: { region: 'eu' } } }]);
  const passThrough = await fetch(`${gateway.url}/operations-manager/jobs/${id}`, { headers: { authorization: `Bearer ${operator.token}` } });
  assert.equal(passThrough.status, 200);
  assert.deepEqual(impostorSaw, [], 'the gateway sent calls (and their tokens) to the planted host');
});

test('a planted header name never reaches an answer, and a projection that keeps the key answers it as data', async () => {
  const { id } = await plant({ 'x-rt-polluted': 'yes' });
  const refused = await find(id, { 'variables.settings.__proto__.x-rt-polluted': 1 });
  assert.match(await refused.text(), /variables\.settings\.__proto__\.x-rt-polluted/);
  for (const path of ['variables.settings.constructor.prototype.polluted', 'variables.prototype.x']) {
    const other = await find(id, { [path]: 1 });
    assert.equal(other.status, 400, path);
    assert.match(await other.text(), new RegExp(path.replace(/\./g, '\\.')));
  }
  assertPrototypeUntouched();

  // A projection that keeps the whole object hands the key back as the data it is.
  const kept = await find(id, { 'variables.settings': 1 });
  assert.equal(kept.status, 200);
  assert.equal(kept.headers.get('x-rt-polluted'), null);
  assert.equal(await kept.text(), `[{"_id":"${id}","variables":{"settings":{"region":"eu","__proto__":{"x-rt-polluted":"yes"}}}}]`);
  const excluded = await find(id, { 'variables.settings.region': 0 });
  assert.equal(excluded.status, 200);
  const text = await excluded.text();
  assert.match(text, /"settings":\{"__proto__":\{"x-rt-polluted":"yes"\}\}/);
  assertPrototypeUntouched();

  const later = await fetch(`${gateway.url}/workflow_engine/jobs/find`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${operator.token}` }, body: JSON.stringify({ query: { _id: id }, options: { fields: { name: 1 } } }) });
  assert.equal(later.status, 200);
  assert.equal(later.headers.get('x-rt-polluted'), null);
  assert.deepEqual(impostorSaw, []);
});
