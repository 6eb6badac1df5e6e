/**
 * `/health/server` and `/health/applications` in the real platform's shapes
 * (itential-mcp's `ServerInfo` and `ApplicationInfo` models), the platform's
 * generic list parameters on the application list (Itential, "Use query
 * parameters in API requests"), and what our own clients read still there.
 * The adapters' list: test/core/relay/adapters-platform.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import { makeUser, role } from '../../helpers/users.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';

let core: RunningCore;
before(async () => {
  core = await startCore(await openTestStore());
});
after(() => core.close());

interface Entry {
  id: string;
  package_id: string;
  version: string;
  type: string;
  description: string;
  state: string;
}
interface List {
  results: Entry[];
  total: number;
}

async function apps(query: string): Promise<List> {
  const res = await core.request(`/health/applications${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as List;
}

function parametersOf(res: JsonResponse): string[] {
  return ((res.body as { details?: Array<{ parameter: string }> }).details ?? []).map((d) => d.parameter.replace(/^query\./, ''));
}

describe('GET /health/server', () => {
  test('answers the platform fields of the process beside our release, version, uptime, store and status', async () => {
    const res = await core.request('/health/server');
    assert.equal(res.status, 200);
    const body = res.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['arch', 'cpuUsage', 'memoryUsage', 'pid', 'platform', 'release', 'status', 'store', 'uptime', 'version', 'versions']);
    // The core runs in this test's process: Node's own view of it is the oracle.
    assert.equal(body['arch'], process.arch);
    assert.equal(body['platform'], process.platform);
    assert.equal(body['pid'], process.pid);
    assert.equal((body['versions'] as Record<string, string>)['node'], process.versions.node);
    assert.equal((body['versions'] as Record<string, string>)['v8'], process.versions.v8);
    const memory = body['memoryUsage'] as Record<string, number>;
    assert.deepEqual(Object.keys(memory).sort(), ['arrayBuffers', 'external', 'heapTotal', 'heapUsed', 'rss']);
    assert.ok(memory['rss']! > 0 && memory['heapUsed']! <= memory['heapTotal']!);
    const cpu = body['cpuUsage'] as Record<string, number>;
    assert.deepEqual(Object.keys(cpu).sort(), ['system', 'user']);
    assert.ok(cpu['user']! > 0);
    assert.equal(body['release'], '2022.1.0', 'the platform release in three parts, as clients cut it');
    assert.deepEqual(body['store'], { kind: 'sqlite', reachable: true });
    assert.equal(body['status'], 'running');
  });

  test("shows the process's library versions and id to Health administrators only", async () => {
    const plain = await makeUser(core, 'server-health-reader', { roles: [role('Health', 'apiread')] });
    const res = await core.request('/health/server', { token: plain.token });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = res.body as Record<string, unknown>;
    assert.equal('versions' in body || 'pid' in body, false, 'which known flaws to try, and which process to aim at, are not shown');
    assert.equal(body['arch'], process.arch, 'the rest of the platform shape is');
  });
});

describe('GET /health/applications', () => {
  test('without parameters answers every application, each in the platform shape', async () => {
    const body = await apps('');
    assert.equal(body.total, body.results.length);
    assert.ok(body.total > 10 && body.total <= 25, 'all of them fit the default page of 25');
    for (const entry of body.results) {
      assert.deepEqual(Object.keys(entry).sort(), ['description', 'id', 'package_id', 'state', 'type', 'version']);
      assert.equal(entry.type, 'Application');
      assert.equal(entry.package_id, 'iap-compat');
      assert.equal(entry.state, 'RUNNING');
      assert.ok(entry.description.length > 0);
    }
    const om = body.results.find((a) => a.id === 'OperationsManager')!;
    assert.match(om.description, /Jobs/);
  });

  test("the platform's lookup of one application, ?equals=<id>&equalsField=id, answers that one", async () => {
    const body = await apps('?equals=OperationsManager&equalsField=id');
    assert.deepEqual(body.results.map((a) => a.id), ['OperationsManager']);
    assert.equal(body.total, 1);
    assert.deepEqual((await apps('?equals=NoSuchApplication&equalsField=id')).results, []);
  });

  test('contains, startsWith, sort, order, skip and limit select and page as the platform reads them', async () => {
    const all = (await apps('')).results.map((a) => a.id);
    const withManager = all.filter((id) => id.includes('Manager'));
    assert.ok(withManager.length >= 2);
    assert.deepEqual((await apps('?contains=Manager&containsField=id')).results.map((a) => a.id), withManager);
    assert.deepEqual((await apps('?startsWith=Auth&startsWithField=id')).results.map((a) => a.id), all.filter((id) => id.startsWith('Auth')));
    const descending = [...all].sort().reverse();
    assert.deepEqual((await apps('?sort=id&order=-1')).results.map((a) => a.id), descending);
    const page = await apps('?sort=id&order=-1&skip=2&limit=3');
    assert.deepEqual(page.results.map((a) => a.id), descending.slice(2, 5));
    assert.equal(page.total, all.length, 'total counts every match, not the page');
    const both = await apps('?contains=Manager&containsField=id&startsWith=Orch&startsWithField=id');
    assert.deepEqual(both.results.map((a) => a.id), ['OrchestratorManager'], 'every filter given applies');
  });

  test('a field, parameter or value the list does not know is a 400 naming it, never an unfiltered answer', async () => {
    const cases: Array<[query: string, parameter: string]> = [
      ['?equals=x&equalsField=name', 'equalsField'],
      ['?equals=x&equalsField=__proto__', 'equalsField'],
      ['?equals=x&equalsField=constructor', 'equalsField'],
      ['?sort=toString', 'sort'],
      ['?memberOf=x', 'memberOf'],
      ['?equals=x', 'equalsField'],
      ['?limit=-1', 'limit'],
      ['?order=2', 'order'],
      ['?equals=a&equals=b&equalsField=id', 'equals'],
    ];
    for (const [query, parameter] of cases) {
      const res = await core.request(`/health/applications${query}`);
      assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`);
      assert.ok(parametersOf(res).includes(parameter), `${query} names ${parameter}: ${JSON.stringify(res.body)}`);
    }
  });
});
