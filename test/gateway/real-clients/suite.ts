/**
 * The requests of Itential's own clients, sent to the gateway as those
 * clients send them, and their answers read the way those clients read them.
 * A client of a real platform must be able to point at the gateway instead
 * (the gateway passes these calls on, or rewrites them) and keep working.
 *
 * Each shape names its public source, at the commit read:
 * - IPCTL: github.com/itential/ipctl at ddcdd39089266fc1d3c3a127633b11cbc2375491
 *   (Itential's CLI, Go): pkg/client/client.go, pkg/services/{current_user,workflows,health}.go
 * - MCP: github.com/itential/itential-mcp at bbc1d6e15096ce44a7cb7789b6dea4a9f701b074
 *   (Itential's MCP server, Python): src/itential_mcp/platform/services/{applications,adapters,
 *   automation_studio,operations_manager,workflow_engine,health}.py
 * - IPSDK: github.com/itential/ipsdk at dd40f6e01731dfec9c820b9588389a4fee89fc83
 *   (Itential's Python SDK, which MCP uses): src/ipsdk/platform.py
 *
 * Runs in two modes, one test file each: in front of our core (core.test.ts),
 * and over HTTPS in front of the platform stand-in with PLATFORM_RELEASE=2023.1
 * and GATEWAY_SERVE_UNTIL=2024.1 (platform.test.ts), where it ends by reading
 * what reached the stand-in.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';
import { ADMIN_PASSWORD, request, startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { createWorkflow, manual, workflow } from '../../helpers/engine.ts';
import { startGateway } from '../../helpers/gateway.ts';
import type { RunningGateway } from '../../helpers/gateway.ts';
import { PLATFORM_SERVING, recordedRoutes, recordingProblems, startInFrontOfPlatform, stopEither } from '../../helpers/in-front-of-platform.ts';
import type { InFrontOfPlatform } from '../../helpers/in-front-of-platform.ts';
import { CALENDAR_FILE } from '../../../gateway/src/app.ts';
import { loadCalendar } from '../../../kernel/releases.ts';

export type Mode = 'core' | 'platform';
type Doc = Record<string, unknown>;

const WORKFLOW = 'Real Client Manual';
/** An adapter instance the core knows (decision 22); nothing listens at its address. */
const ADAPTER = 'nso-lab';
const ADAPTERS = JSON.stringify([{ name: ADAPTER, type: 'nso', baseUrl: 'http://127.0.0.1:9', credentials: { username: 'admin', password: 'admin' } }]);
/** The adapter states MCP's adapters.py compares `state` with (start_adapter, stop_adapter). */
const ADAPTER_STATES = ['RUNNING', 'STOPPED', 'DEAD', 'DELETED', 'STARTING', 'STOPPING'];

let store: SqliteStore;
let core: RunningCore;
let gateway: RunningGateway;
let platform: InFrontOfPlatform | null = null;
/** The session cookie, kept as a cookie jar keeps it (IPCTL pkg/client/jar.go; IPSDK platform.py "maintained via cookies"). */
let jar = '';

/** A call as the clients make it: JSON in and out, the session cookie from the jar. */
async function call(method: string, path: string, body?: unknown): Promise<JsonResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (jar !== '') headers['cookie'] = jar;
  return request(`${gateway.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

function ok(res: JsonResponse, what: string): Doc {
  assert.equal(res.status, 200, `${what}: ${res.status} ${JSON.stringify(res.body)?.slice(0, 500)}`);
  assert.ok(res.body !== null && typeof res.body === 'object' && !Array.isArray(res.body), `${what}: a JSON object: ${JSON.stringify(res.body)?.slice(0, 300)}`);
  return res.body as Doc;
}

export function realClientsSuite(mode: Mode): void {
  before(async () => {
    store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
    const coreEnv = { ADAPTERS };
    platform = mode === 'platform' ? await startInFrontOfPlatform({ store, coreEnv }) : null;
    core = platform?.core ?? (await startCore(store, coreEnv));
    gateway = platform?.gateway ?? (await startGateway(core.url));
    await createWorkflow(core, workflow(WORKFLOW, { b2: manual({ answer: '' }) }, [['workflow_start', 'b2'], ['b2', 'workflow_end']]));
  });
  after(async () => {
    await stopEither(platform, gateway, core);
    await store?.close();
  });

  test('IPCTL and IPSDK log in with POST /login {user: {username, password}} and keep the session cookie it sets', async () => {
    // IPCTL pkg/client/client.go authenticateUsingBasicAuth: the body, and only the status is read.
    // IPSDK src/ipsdk/platform.py: the same body to _BASICAUTH_PATH "/login", then cookies.
    const res = await call('POST', '/login', { user: { username: 'admin', password: ADMIN_PASSWORD } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]!).find((c) => c.startsWith('token='));
    assert.ok(cookie && cookie.length > 'token='.length, `a token cookie is set: ${res.headers.getSetCookie().join(' | ')}`);
    jar = cookie;
  });

  test('IPCTL reads GET /whoami as its CurrentUser: username, provenance, roles', async () => {
    // IPCTL pkg/services/current_user.go: CurrentUser {id, username, firstname, groups, methods, provenance, roles, routes}.
    const me = ok(await call('GET', '/whoami'), 'GET /whoami');
    assert.equal(me['username'], 'admin');
    assert.equal(typeof me['provenance'], 'string');
    assert.ok(Array.isArray(me['roles']) && me['roles'].length > 0, `roles: ${JSON.stringify(me['roles'])}`);
  });

  test('IPCTL and MCP find a workflow by name: GET /automation-studio/workflows?equals[name]=… with total 1 and items[0]._id', async () => {
    // IPCTL pkg/services/workflows.go Get: query {"equals[name]": name}; reads Total, then Items[0].
    // MCP automation_studio.py _describe_workflow: params {"equals[name]": name}; data["total"] != 1 fails; data["items"][0].
    const found = ok(await call('GET', `/automation-studio/workflows?${new URLSearchParams({ 'equals[name]': WORKFLOW })}`), 'workflows by name');
    assert.equal(found['total'], 1, JSON.stringify(found).slice(0, 300));
    const [item] = found['items'] as Doc[];
    assert.equal(item?.['name'], WORKFLOW);
    assert.match(String(item?.['_id']), /^[0-9a-f]{24}$|^[0-9a-f-]{36}$/);
    const none = ok(await call('GET', `/automation-studio/workflows?${new URLSearchParams({ 'equals[name]': 'No Such Workflow' })}`), 'an unknown name');
    assert.equal(none['total'], 0, 'an unknown name is "workflow not found", not every workflow');
  });

  test('IPCTL lists every workflow by limit and skip until it holds total of them', async () => {
    // IPCTL pkg/services/workflows.go GetAll: QueryParams{Limit: 100, Skip: skip}; stops when len(workflows) == res.Total.
    const all: Doc[] = [];
    for (let skip = 0, pages = 0; pages < 10; skip += 100, pages += 1) {
      const page = ok(await call('GET', `/automation-studio/workflows?limit=100&skip=${skip}`), 'a page of workflows');
      all.push(...(page['items'] as Doc[]));
      if (all.length === page['total']) break;
    }
    assert.ok(all.some((w) => w['name'] === WORKFLOW), 'the loop ended holding the workflow');
  });

  test('MCP looks an application up with GET /health/applications?equals=OperationsManager&equalsField=id: total 1, results[0].state', async () => {
    // MCP applications.py _get_application_health: params {"equals": name, "equalsField": "id"}; data["total"] != 1 fails; data["results"][0].
    const res = ok(await call('GET', '/health/applications?equals=OperationsManager&equalsField=id'), 'the application by id');
    assert.equal(res['total'], 1, JSON.stringify(res).slice(0, 400));
    const [app] = res['results'] as Doc[];
    assert.equal(app?.['id'], 'OperationsManager');
    assert.equal(typeof app?.['state'], 'string');
    // IPCTL pkg/services/health.go ApplicationHealth: id, package_id, version, type, state.
    for (const field of ['package_id', 'version', 'type']) assert.ok(Object.hasOwn(app!, field), `${field} in ${JSON.stringify(app)}`);
  });

  test('MCP looks an adapter up with GET /health/adapters?equals=…&equalsField=id: total 1, a state it knows, a version', async () => {
    // MCP adapters.py _get_adapter_health: the same parameters; data["results"][0]["state"] compared with RUNNING, STOPPED, DEAD, DELETED.
    const res = ok(await call('GET', `/health/adapters?equals=${ADAPTER}&equalsField=id`), 'the adapter by id');
    assert.equal(res['total'], 1, JSON.stringify(res).slice(0, 400));
    const [adapter] = res['results'] as Doc[];
    assert.equal(adapter?.['id'], ADAPTER);
    assert.ok(ADAPTER_STATES.includes(String(adapter?.['state'])), `state ${String(adapter?.['state'])} is one of ${ADAPTER_STATES.join(', ')}`);
    assert.ok(Object.hasOwn(adapter!, 'version'), `version in ${JSON.stringify(adapter)}`);
    const none = ok(await call('GET', '/health/adapters?equals=no-such-adapter&equalsField=id'), 'an unknown adapter');
    assert.equal(none['total'], 0, 'an unknown adapter is "unable to find adapter", not every adapter');
  });

  test('IPCTL and MCP read GET /health/status and /health/server in the platform\'s shape', async () => {
    // MCP health.py get_status_health: GET /health/status, the first call; IPCTL health.go HealthStatus {host, serverId, services[{service, status}]}.
    const status = ok(await call('GET', '/health/status'), 'GET /health/status');
    assert.ok(Array.isArray(status['services']), `services: ${JSON.stringify(status).slice(0, 300)}`);
    // IPCTL health.go ServerHealth: version, release, arch, platform, versions, memoryUsage, cpuUsage, uptime, pid.
    const server = ok(await call('GET', '/health/server'), 'GET /health/server');
    for (const field of ['version', 'arch', 'platform', 'versions', 'memoryUsage', 'cpuUsage', 'uptime', 'pid']) assert.ok(Object.hasOwn(server, field), `${field} in /health/server`);
  });

  test('MCP starts a job with POST /operations-manager/jobs/start and reads it back with GET /operations-manager/jobs/:id', async () => {
    // MCP operations_manager.py start_job: body {workflow, options: {type: "automation", groups: [], description, variables}}.
    // (It posts to /operations_manager/jobs/start, with an underscore, which is not a 2023.2 route; the route list has the dash.)
    const started = ok(await call('POST', '/operations-manager/jobs/start', { workflow: WORKFLOW, options: { type: 'automation', groups: [], description: 'real client', variables: { port: 'Gi0/1' } } }), 'the start');
    const job = started['data'] as Doc;
    assert.match(String(job['_id']), /^[0-9a-f]{24}$|^[0-9a-f-]{36}$/);
    // MCP operations_manager.py describe_job: GET /operations-manager/jobs/{object_id}, res.json()["data"].
    const read = ok(await call('GET', `/operations-manager/jobs/${String(job['_id'])}`), 'the job');
    assert.equal((read['data'] as Doc)['_id'], job['_id']);
    assert.ok(['running', 'paused', 'complete', 'error', 'canceled', 'incomplete'].includes(String((read['data'] as Doc)['status'])));
    // MCP operations_manager.py get_jobs: params {"equals[name]": name, limit, skip}; reads data and metadata.total.
    const jobs = ok(await call('GET', `/operations-manager/jobs?${new URLSearchParams({ 'equals[name]': WORKFLOW, limit: '100', skip: '0' })}`), 'jobs by name');
    assert.equal((jobs['metadata'] as Doc)['total'], 1);
    assert.equal(((jobs['data'] as Doc[])[0] ?? {})['_id'], job['_id']);
  });

  test('MCP pages GET /workflow_engine/jobs/metrics and /tasks/metrics by results and total', async () => {
    // MCP workflow_engine.py _get_route: _paginate(path, data_key="results", total_key="total").
    for (const path of ['/workflow_engine/jobs/metrics', '/workflow_engine/tasks/metrics']) {
      const page = ok(await call('GET', `${path}?limit=100&skip=0`), path);
      assert.ok(Array.isArray(page['results']), `${path} results`);
      assert.equal(typeof page['total'], 'number', `${path} total`);
    }
  });

  test('a legacy getJob in the same session answers with Deprecation, Sunset and Link', async () => {
    const started = ok(await call('POST', '/operations-manager/jobs/start', { workflow: WORKFLOW, options: { description: 'legacy read' } }), 'the start');
    const id = String((started['data'] as Doc)['_id']);
    const res = await call('GET', `/workflow_engine/getJob/${id}`);
    const body = ok(res, 'legacy getJob');
    assert.equal(body['_id'], id);
    assert.match(res.headers.get('deprecation') ?? '', /^@\d+$/);
    assert.ok(res.headers.get('sunset'), 'a Sunset header');
    // In front of the platform the gateway's own end (GATEWAY_SERVE_UNTIL) is the sunset, not the removal.
    if (mode === 'platform') assert.equal(res.headers.get('sunset'), loadCalendar(CALENDAR_FILE).dateOf(PLATFORM_SERVING.GATEWAY_SERVE_UNTIL).toUTCString());
    assert.match(res.headers.get('link') ?? '', /rel="successor-version"/);
  });

  if (mode === 'platform') {
    test('what reached the platform stand-in is what a real platform serves, with the session cookie as the clients sent it', (t) => {
      const made = platform!.sim.requests;
      t.diagnostic(`${made.length} requests; routes: ${recordedRoutes(made).join(', ')}`);
      assert.deepEqual(recordingProblems(made), []);
      const forms = new Set(made.filter((r) => !r.url.startsWith('/login')).map((r) => r.credentials));
      assert.deepEqual([...forms], ['cookie'], 'every call after the login carried the cookie, unchanged in form');
    });
  }
}

