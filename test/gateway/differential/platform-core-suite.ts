/**
 * Differential test of the platform-core lists and searches (`GET /accounts`,
 * `/user-management/accounts`, `POST /accounts/search`) on more accounts
 * than the core's largest list page: limits of 0 and above that page, skips,
 * sorts, projections and both legacy credential forms, each answer compared
 * with MongoDB's (mingo) on the accounts as the store holds them.
 * DIFF_SEED replays a run.
 *
 * Runs in two modes, one test file each: in front of our core
 * (platform-core.test.ts), and over HTTPS in front of the platform stand-in
 * (platform-core-platform.test.ts), where the gateway must send the
 * platform's own list filters (`multiStartsWith[username]`, not the legacy
 * `startsWith`/`startsWithField`, which the platform ignores, answering every
 * account) and follow the stand-in's page cap, below the gateway's page; the
 * suite ends by reading what reached the stand-in.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testConfig } from '../../helpers/core.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { startGateway } from '../../helpers/gateway.ts';
import type { RunningGateway } from '../../helpers/gateway.ts';
import { objectId } from './documents.ts';
import type { Doc } from './documents.ts';
import { mongoCount, mongoFind } from './oracle.ts';
import { CREDENTIALS } from './world.ts';
import type { Credential, Mode } from './world.ts';
import { assertPlatformServed, startInFrontOfPlatform, stopEither } from '../../helpers/in-front-of-platform.ts';
import type { InFrontOfPlatform } from '../../helpers/in-front-of-platform.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const SEED = Number(process.env['DIFF_SEED'] ?? Date.now() % 2 ** 31);
const RUNS = Number(process.env['DIFF_RUNS'] ?? 25);
/**
 * A small largest page, given to both services through the config as an operator would: the core's lists
 * refuse more, so the gateway's upstream page (`gateway.upstreamPageMax`) must not exceed it.
 */
const ENV = { SEARCH_MAX_LIMIT: '7', SEARCH_DEFAULT_LIMIT: '5', GATEWAY_UPSTREAM_PAGE_MAX: '7' };
const MAX_LIMIT = (await testConfig(ENV)).search.maxLimit;
const COUNT = MAX_LIMIT + 37;
const MINE = { username: { $regex: '^diff-' } };

let store: SqliteStore;
let core: RunningCore;
let gateway: RunningGateway;
let accounts: Doc[];
let platform: InFrontOfPlatform | null = null;
let credentials: readonly Credential[] = CREDENTIALS.core;

async function setUp(mode: Mode): Promise<void> {
  store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  // The stand-in's page is smaller than the gateway's (7): paging must follow what it answered.
  platform = mode === 'platform' ? await startInFrontOfPlatform({ store, coreEnv: ENV, gatewayEnv: ENV, pageCap: 4 }) : null;
  core = platform?.core ?? (await startCore(store, ENV));
  gateway = platform?.gateway ?? (await startGateway(core.url, ENV));
  credentials = CREDENTIALS[mode];
  const ids = fc.sample(fc.uniqueArray(objectId, { minLength: COUNT, maxLength: COUNT }), { seed: SEED, numRuns: 1 })[0]!;
  // Usernames repeat in pairs' first names and sort apart from insertion order.
  accounts = ids.map((id, i) => ({ _id: id, username: `diff-${String((i * 7919) % COUNT).padStart(5, '0')}`, firstname: ['Ann', 'Bob', 'Cy'][i % 3], provenance: 'Local AAA', inactive: i % 5 === 0, memberOf: [], assignedRoles: [] }));
  await store.collection('accounts').insertMany(structuredClone(accounts));
}

async function tearDown(): Promise<void> {
  await stopEither(platform, gateway, core);
  await store?.close();
}

function send(method: 'GET' | 'POST', path: string, body: unknown, credential: Credential): Promise<JsonResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  let url = `${gateway.url}${path}`;
  if (credential === 'bearer') headers['authorization'] = `Bearer ${core.adminToken}`;
  else if (credential === 'cookie') headers['cookie'] = `token=${core.adminToken}`;
  else url += `${path.includes('?') ? '&' : '?'}token=${core.adminToken}`;
  return request(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}


const skip = fc.constantFrom(undefined, 0, 3, 990);
const limit = fc.constantFrom(0, 2, MAX_LIMIT, MAX_LIMIT + 5, 1500);
const direction = fc.constantFrom(1 as const, -1 as const);

export function platformCoreSuite(mode: Mode): void {
  before(() => setUp(mode));
  after(tearDown);

  test(`GET /accounts and /user-management/accounts serve a limit of 0 or above the list's page whole, as MongoDB does (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('/accounts', '/user-management/accounts'), skip, limit, direction, fc.constantFrom(...credentials), async (path, sk, l, order, credential) => {
        const params = new URLSearchParams({ startsWith: 'diff-', startsWithField: 'username', sort: 'username', order: String(order), limit: String(l), ...(sk === undefined ? {} : { skip: String(sk) }) });
        const res = await send('GET', `${path}?${params}`, undefined, credential);
        assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
        assert.deepStrictEqual(res.body, { results: mongoFind(accounts, MINE, { sort: [['username', order]], skip: sk, limit: l }), total: COUNT });
      }),
      { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
    );
  });

  test(`POST /accounts/search keeps MongoDB's skip, limit, sort and projection (seed ${SEED})`, async () => {
    const fields = fc.constantFrom(undefined, { username: 1 }, { firstname: 0, memberOf: 0 }, { _id: 0, username: 1 });
    await fc.assert(
      fc.asyncProperty(skip, fc.constantFrom(undefined, 0, 4, 1500), direction, fields, fc.constantFrom(...credentials), async (sk, l, order, projection, credential) => {
        const options = { filter: MINE, sort: { username: order }, ...(sk === undefined ? {} : { skip: sk }), ...(l === undefined ? {} : { limit: l }), ...(projection ? { fields: projection } : {}) };
        const res = await send('POST', '/accounts/search', { options }, credential);
        assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
        assert.deepStrictEqual(res.body, { results: mongoFind(accounts, MINE, { sort: [['username', order]], skip: sk, limit: l, projection }), total: mongoCount(accounts, MINE) });
      }),
      { seed: SEED, numRuns: RUNS, includeErrorInReport: true },
    );
  });

  test('POST /accounts/search refuses, naming it, a sort or projection the list cannot give', async () => {
    const sorted = await send('POST', '/accounts/search', { options: { filter: MINE, sort: { firstname: 1, username: 1 } } }, credentials[0]!);
    assert.equal(sorted.status, 500);
    assert.match(String(sorted.body), /sort firstname: 1, username: 1 cannot be expressed/);
    const mixed = await send('POST', '/accounts/search', { options: { filter: MINE, fields: { username: 1, firstname: 0 } } }, 'query-token');
    assert.equal(mixed.status, 500);
    assert.match(String(mixed.body), /Cannot do exclusion on field firstname in inclusion projection/);
  });

  if (mode === 'platform') {
    test('what reached the platform stand-in is what a real platform serves: its list filters, its routes, over TLS', (t) => {
      const made = platform!.sim.requests;
      assertPlatformServed(t, made);
    });
  }
}
