/**
 * `GET /health/adapters` read the way the platform's clients read it: one
 * adapter looked up with `?equals=<name>&equalsField=id` (itential-mcp's
 * adapter tools), entries with `version`, `state` in the platform's process
 * states and `connection.state` ONLINE or OFFLINE, and the platform's other
 * list parameters. Base URLs and errors stay an administrator's, and cannot
 * be filtered on by anyone.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeUser } from '../../helpers/users.ts';
import type { RelayFixture } from './fixture.ts';
import { NSO, startRelayFixture } from './fixture.ts';

let f: RelayFixture;
before(async () => {
  f = await startRelayFixture();
});
after(() => f.close());
beforeEach(() => f.sim.reset());

type Entry = Record<string, unknown> & { id: string };
interface List {
  results: Entry[];
  total: number;
}

async function adapters(query: string, token?: string): Promise<List> {
  const res = await f.core.request(`/health/adapters${query}`, token ? { token } : {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as List;
}

/** The process states and connection states itential-mcp and Itential's monitoring page name. */
const PLATFORM_STATES = new Set(['RUNNING', 'STOPPED', 'DEAD', 'DELETED', 'STARTING', 'STOPPING']);

test("the platform's lookup of one adapter answers it with id, package_id, version, type, state and connection", async () => {
  const body = await adapters(`?equals=${encodeURIComponent(NSO)}&equalsField=id`);
  assert.equal(body.total, 1);
  const [entry] = body.results;
  assert.equal(entry!.id, NSO);
  assert.equal(typeof entry!['version'], 'string');
  assert.equal(typeof entry!['package_id'], 'string');
  assert.equal(entry!['type'], 'Adapter');
  assert.equal(entry!['state'], 'RUNNING');
  assert.deepEqual(entry!['connection'], { state: 'ONLINE' });
  // What our own clients read is still there.
  assert.deepEqual([entry!['adapterType'], entry!['enabled'], entry!['reachable']], ['nso', true, true]);
});

test('every entry parses into the platform state set, and our states map onto it', async () => {
  const body = await adapters('?limit=100');
  assert.equal(body.total, 7);
  for (const entry of body.results) {
    assert.ok(PLATFORM_STATES.has(String(entry['state'])), `${entry.id}: ${String(entry['state'])}`);
    assert.ok(['ONLINE', 'OFFLINE'].includes((entry['connection'] as { state: string }).state));
  }
  const byId = new Map(body.results.map((e) => [e.id, e]));
  const summary = (id: string) => [byId.get(id)!['state'], (byId.get(id)!['connection'] as { state: string }).state];
  assert.deepEqual(summary(NSO), ['RUNNING', 'ONLINE']);
  assert.deepEqual(summary('closed'), ['RUNNING', 'OFFLINE'], 'enabled but its orchestrator does not answer');
  assert.deepEqual(summary('off'), ['STOPPED', 'OFFLINE'], 'disabled');
});

test('the filters read connection.state and adapterType; sort, order, skip and limit page as the platform does', async () => {
  const offline = await adapters('?equals=OFFLINE&equalsField=connection.state&sort=id');
  assert.deepEqual(offline.results.map((e) => e.id), ['closed', 'off']);
  assert.deepEqual((await adapters('?equals=gateway&equalsField=adapterType')).results.map((e) => e.id), ['ag']);
  assert.deepEqual((await adapters('?startsWith=Local&startsWithField=id')).results.map((e) => e.id), [NSO]);
  const all = (await adapters('?sort=id&order=-1')).results.map((e) => e.id);
  assert.deepEqual(all, [...all].sort().reverse());
  const page = await adapters('?sort=id&order=-1&skip=1&limit=2');
  assert.deepEqual(page.results.map((e) => e.id), all.slice(1, 3));
  assert.equal(page.total, 7);
});

test('nobody can filter on a base URL or an error, and non-administrators still do not see them', async () => {
  const nobody = await makeUser(f.core, 'adapter-health-reader');
  for (const field of ['baseUrl', 'error', 'credentials', '__proto__']) {
    for (const token of [undefined, nobody.token]) {
      const res = await f.core.request(`/health/adapters?contains=127.0.0.1&containsField=${field}`, token ? { token } : {});
      assert.equal(res.status, 400, `${field}: ${JSON.stringify(res.body)}`);
    }
  }
  const seen = await adapters(`?equals=${encodeURIComponent(NSO)}&equalsField=id`, nobody.token);
  assert.equal(seen.results[0]!['baseUrl'], undefined);
  assert.equal((await adapters('?equals=closed&equalsField=id', nobody.token)).results[0]!['error'], undefined);
  assert.equal(typeof (await adapters('?equals=closed&equalsField=id')).results[0]!['error'], 'string');
  assert.equal((await f.core.request('/health/adapters?equals=x&equalsField=id', { token: null })).status, 401);
});
