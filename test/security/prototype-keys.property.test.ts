/**
 * Issue 26, part 1, as a property: `__proto__`, `constructor` and
 * `prototype` sent as keys and as path segments through every place data
 * enters (legacy and core request bodies, legacy `fields`, `sort` and
 * queries, core `include`, `exclude`, `sort` and `q`, the mapping's
 * templates and path parameters, stored task outputs made by a
 * transformation) never reach a prototype. After every attempt
 * `Object.prototype` is as it was (the core and the gateway both run in this
 * process), and the gateway's next calls to the core, seen by a recording
 * relay that stands where the core is (CORE_URL), go there with the same URL
 * and the same headers as before any attack, and nothing reaches a listener
 * on [::1] at the relay's port (where a planted `hostname` would send them).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
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
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

const KEYS = ['__proto__', 'constructor', 'prototype'] as const;
/** Names an attacker would plant: where node:http connects, and a header every answer would carry. */
const PLANTED = ['hostname', 'x-rt-polluted', 'port', 'path', 'headers', 'polluted'] as const;

let store: Store;
let core: RunningCore;
let gateway: RunningGateway;
let relay: Server;
let impostor: Server;
let operator: TestUser;
let trId: string;
let jobId: string;
const relayed: Seen[] = [];
const impostorSaw: Seen[] = [];
const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();

/** Passes every call on to the core as it came, and keeps what it saw. */
function startRelay(coreUrl: string): Promise<Server> {
  const target = new URL(coreUrl);
  const server = createServer((req, res) => {
    relayed.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const upstream = httpRequest({ hostname: target.hostname, port: Number(target.port), method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

before(async () => {
  store = await openTestStore({ countCacheEntries: 0 });
  core = await startCore(store);
  relay = await startRelay(core.url);
  const relayPort = (relay.address() as AddressInfo).port;
  impostor = createServer((req, res) => {
    impostorSaw.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  await new Promise<void>((resolve, reject) => impostor.once('error', reject).listen(relayPort, '::1', () => resolve()));
  gateway = await startGateway(`http://127.0.0.1:${relayPort}`);

  const saved = await core.request('/transformations/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Pairs', incoming: [{ $id: 'pairs', type: 'array' }], outgoing: [{ $id: 'obj', type: 'object' }], mapping: '{"obj": $merge(pairs.{k: v})}' }),
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  trId = (saved.body as { _id: string })._id;
  await createWorkflow(core, workflow('Keep Pairs', {
    a1: { name: 'transformation', app: 'WorkFlowEngine', type: 'automatic', variables: { incoming: { tr_id: trId, variableMap: '$var.job.input', options: { extractOutput: true } }, outgoing: { output: '$var.job.settings' } } },
  }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  // Jobs act for whoever starts them: the operator may also run transformations.
  operator = await makeUser(core, 'prop-operator', { roles: [role('OperationsManager', 'operations'), role('Jst', 'operations')] });
  jobId = await startJob(core, 'Keep Pairs', { input: { pairs: [{ k: 'region', v: 'eu' }] } }, operator.token);
  await job(core, jobId);
});

after(async () => {
  await gateway?.close();
  await new Promise((r) => relay?.close(r));
  await new Promise((r) => impostor?.close(r));
  await core?.close();
  await store?.close();
});

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

async function send(base: string, method: string, path: string, body?: string): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${operator.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const viaGateway = (method: string, path: string, body?: string): Promise<Answer> => send(gateway.url, method, path, body);
const toCore = (method: string, path: string, body?: string): Promise<Answer> => send(core.url, method, path, body);

/** A JSON object text with `key` as an own key (a JS literal `{__proto__: x}` would set a prototype instead). */
function withKey(key: string, value: unknown, rest: Record<string, unknown> = {}): string {
  const inner = JSON.stringify(rest);
  return `{${JSON.stringify(key)}:${JSON.stringify(value)}${inner === '{}' ? '' : `,${inner.slice(1, -1)}`}}`;
}

const find = (body: string): Promise<Answer> => viaGateway('POST', '/workflow_engine/jobs/find', body);

/** A refusal of a caller's path: 400 from the core, and 400 from the legacy surface too, as a legacy string (docs/errors.md). */
function assertRefused(answer: Answer, names: string, legacy: boolean): void {
  assert.equal(answer.status, 400, answer.text);
  if (legacy) assert.equal(typeof JSON.parse(answer.text), 'string', answer.text);
  assert.ok(answer.text.includes(names), `the refusal names ${names}: ${answer.text}`);
}

interface Attack {
  readonly name: string;
  run(key: string, planted: string, value: string): Promise<void>;
}

const attacks: readonly Attack[] = [
  {
    name: 'legacy fields path',
    async run(key, planted) {
      const path = `variables.${key}.${planted}`;
      assertRefused(await find(JSON.stringify({ query: { _id: jobId }, options: { fields: { name: 1, [path]: 1 } } })), path, true);
    },
  },
  {
    name: 'legacy exclusion and sort paths',
    async run(key, planted) {
      assertRefused(await find(JSON.stringify({ query: {}, options: { fields: { [`${key}.${planted}`]: 0 } } })), `${key}.${planted}`, true);
      assertRefused(await find(JSON.stringify({ query: {}, options: { sort: { [`${key}.${planted}`]: -1 } } })), `${key}.${planted}`, true);
      assertRefused(await find(JSON.stringify({ query: {}, options: { sort: key } })), key, true);
    },
  },
  {
    name: 'legacy query keys',
    async run(key, planted, value) {
      const dotted = await find(JSON.stringify({ query: { [`${key}.${planted}`]: value }, options: {} }));
      assert.notEqual(dotted.status, 200, dotted.text);
      const nested = await find(`{"query":${withKey(key, { [planted]: value })},"options":{}}`);
      assert.notEqual(nested.status, 200, nested.text);
    },
  },
  {
    name: 'legacy body keys (templates fill from the body)',
    async run(key, planted, value) {
      const options = withKey(key, { [planted]: value }, { limit: 1 });
      const pair = `${JSON.stringify(planted)}:${JSON.stringify(value)}`;
      const answer = await find(`{"query":{"_id":${JSON.stringify(jobId)}},"options":${options},${JSON.stringify(key)}:{${pair}}}`);
      assert.ok(!answer.text.includes(pair), `the planted pair came back: ${answer.status} ${answer.text}`);
      // A path parameter is one encoded segment, never a key to follow.
      const byId = await viaGateway('GET', `/workflow_engine/getJob/${encodeURIComponent(key)}`);
      assert.ok(byId.status >= 400 && !byId.text.includes(pair), `${byId.status} ${byId.text}`);
    },
  },
  {
    name: 'core include, exclude and sort paths',
    async run(key, planted) {
      const path = `variables.${key}.${planted}`;
      assertRefused(await toCore('GET', `/operations-manager/jobs?include=name,${encodeURIComponent(path)}`), 'include', false);
      assertRefused(await toCore('GET', `/operations-manager/jobs?exclude=${encodeURIComponent(path)}`), 'exclude', false);
      assertRefused(await toCore('GET', `/operations-manager/jobs?sort=${encodeURIComponent(`${key}.${planted}`)}&order=1`), 'sort', false);
      assertRefused(await viaGateway('GET', `/operations-manager/tasks?include=${encodeURIComponent(path)}`), 'include', false);
    },
  },
  {
    name: 'core q keys',
    async run(key, planted, value) {
      const qs = [withKey(key, { equals: { status: value } }), `{"equals":${withKey(`${key}.${planted}`, value)}}`, `{"equals":${withKey(key, value)}}`];
      for (const q of qs) assertRefused(await toCore('GET', `/operations-manager/jobs?q=${encodeURIComponent(q)}`), 'q', false);
    },
  },
  {
    name: 'core request body keys',
    async run(key, planted, value) {
      const start = await toCore('POST', '/operations-manager/jobs/start', `{"workflow":"Keep Pairs","options":{"variables":${withKey(key, { [planted]: value }, { input: { pairs: [] } })}}}`);
      // Refused by the body parser (`__proto__`, `constructor.prototype`), or kept as the job's own data.
      if (start.status === 200) {
        const done = await job(core, (JSON.parse(start.text) as { data: { _id: string } }).data._id);
        assert.ok(Object.hasOwn(done.variables, key), JSON.stringify(done.variables));
        assert.deepEqual(done.variables[key], { [planted]: value });
      } else assert.ok(start.status >= 400 && start.status < 500, `${start.status} ${start.text}`);
    },
  },
  {
    name: 'transformation output and stored task output keep the key as data',
    async run(key, planted, value) {
      const pairs = [{ k: 'region', v: 'eu' }, { k: key, v: { [planted]: value } }];
      const ran = await toCore('POST', `/transformations/${trId}`, JSON.stringify({ incoming: { pairs }, options: { extractOutput: true } }));
      assert.equal(ran.status, 200, ran.text);
      assert.deepEqual(Object.keys(JSON.parse(ran.text) as object), ['region', key]);
      const id = await startJob(core, 'Keep Pairs', { input: { pairs } }, operator.token);
      const done = await job(core, id);
      assert.equal(done.status, 'complete', JSON.stringify(done.error));
      assert.deepEqual(Object.keys(done.variables['settings'] as object), ['region', key]);
      // Projected as a whole, the key is handed back as the data it is.
      const kept = await find(JSON.stringify({ query: { _id: id }, options: { fields: { 'variables.settings': 1 } } }));
      assert.equal(kept.status, 200, kept.text);
      assert.ok(kept.text.includes(`${JSON.stringify(key)}:{${JSON.stringify(planted)}:${JSON.stringify(value)}}`), kept.text);
    },
  },
];

interface Probe {
  readonly url: string;
  readonly headers: readonly string[];
  readonly answerHeaders: readonly string[];
}

/** The gateway's next calls: a rewritten legacy search and a pass-through read, as the relay sees them. */
async function probe(): Promise<Probe[]> {
  const out: Probe[] = [];
  for (const call of [() => find(JSON.stringify({ query: { _id: jobId }, options: { fields: { name: 1 } } })), () => viaGateway('GET', `/operations-manager/jobs/${jobId}`)]) {
    const before = relayed.length;
    const answer = await call();
    assert.equal(answer.status, 200, answer.text);
    const seen = relayed.slice(before);
    assert.ok(seen.length > 0, 'the call reached the core');
    for (const s of seen) {
      assert.equal(s.headers['host'], `127.0.0.1:${(relay.address() as AddressInfo).port}`);
      assert.equal(s.headers['authorization'], `Bearer ${operator.token}`);
    }
    const names = (h: Iterable<string>): string[] => [...h].map((n) => n.toLowerCase()).sort();
    out.push(...seen.map((s) => ({ url: s.url, headers: names(Object.keys(s.headers)), answerHeaders: names([...answer.headers.keys()].filter((n) => n !== 'date')) })));
  }
  return out;
}

test('prototype keys, as keys or path segments, anywhere data enters, reach no prototype and leave the gateway calling the core as before', { timeout: 300_000 }, async () => {
  // The first call of a caller also asks the core who it is (then cached): the baseline is the second.
  await probe();
  const baseline = await probe();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...attacks), fc.constantFrom(...KEYS), fc.constantFrom(...PLANTED), fc.stringMatching(/^[a-z0-9:.]{1,12}$/), async (attack, key, planted, value) => {
      await attack.run(key, planted, value);
      assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore, attack.name);
      assert.equal(({} as Record<string, unknown>)[planted], undefined, `${attack.name}: Object.prototype.${planted} was planted`);
      assert.deepEqual(await probe(), baseline, attack.name);
      assert.deepEqual(impostorSaw, [], attack.name);
    }),
    { numRuns: 60 },
  );
});

test('every attack runs with every key once', { timeout: 300_000 }, async () => {
  for (const attack of attacks) {
    for (const key of KEYS) {
      await attack.run(key, 'hostname', '::1');
      assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeBefore, `${attack.name} with ${key}`);
    }
  }
  assert.deepEqual(impostorSaw, []);
});
