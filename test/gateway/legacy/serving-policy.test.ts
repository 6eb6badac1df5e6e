/**
 * The serving policy through the real gateway in front of the real core, on
 * loopback (decision 31): told that its upstream is a 2023.1 platform and to
 * serve until 2024.1, the gateway rewrites every one of the 112 legacy
 * operations, with Sunset at 2024.1, and refuses them all from 2024.1; a
 * per-operation date is judged against the clock; a setting that names no
 * operation, or more than one, stops the start; and the audit report's
 * "what breaks" follows the same rule.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../../config/load.ts';
import { CALENDAR_FILE } from '../../../gateway/src/app.ts';
import type { Entry } from '../../../gateway/src/mapping/types.ts';
import { loadCalendar } from '../../../gateway/src/releases.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { request, startCore, testConfig } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { startGateway } from '../../helpers/gateway.ts';
import type { RunningGateway } from '../../helpers/gateway.ts';

const UNTIL_2024_1 = 'Fri, 26 Apr 2024 00:00:00 GMT';
const ID = 'a'.repeat(24);
const calendar = loadCalendar(CALENDAR_FILE);

let core: RunningCore;
let gw: RunningGateway;
let auth: Record<string, string>;

before(async () => {
  core = await startCore(await openTestStore(), { PLATFORM_RELEASE: '2023.1' });
  gw = await startGateway(core.url, { PLATFORM_RELEASE: '2023.1', GATEWAY_SERVE_UNTIL: '2024.1' });
  auth = { authorization: `Bearer ${core.adminToken}`, 'content-type': 'application/json', 'user-agent': 'serving-policy-test/1.0' };
});
after(async () => {
  await gw.close();
  await core.close();
});

/** Calls an entry's legacy route with made-up ids and an empty body: enough to tell served from refused. */
function call(base: string, entry: Entry): Promise<JsonResponse> {
  const path = entry.legacy.path.replace(/:(\w+)/g, ID);
  const hasBody = entry.legacy.method !== 'GET' && entry.legacy.method !== 'DELETE';
  return request(`${base}${path}`, { method: entry.legacy.method, headers: auth, ...(hasBody ? { body: '{}' } : {}) });
}

test('in front of a 2023.1 platform with GATEWAY_SERVE_UNTIL=2024.1, all 112 operations are served, each with Sunset at 2024.1', async () => {
  const { entries } = gw.gateway;
  assert.equal(entries.length, 112);
  const refused: string[] = [];
  for (const entry of entries) {
    const res = await call(gw.url, entry);
    if (res.status === 410) refused.push(`${entry.id}: ${String(res.body)}`);
    assert.equal(res.headers.get('sunset'), UNTIL_2024_1, entry.id);
    assert.match(res.headers.get('deprecation') ?? '', /^@\d+$/, entry.id);
  }
  assert.deepEqual(refused, [], 'no operation answers 410 before 2024.1');
});

test('the gateway\'s /openapi.json says the same: each legacy operation served until 2024.1, its Sunset example that date, its removal release unchanged', async () => {
  const res = await request(`${gw.url}/openapi.json`);
  assert.equal(res.status, 200);
  const paths = (res.body as { paths: Record<string, Record<string, Record<string, unknown>>> }).paths;
  for (const entry of gw.gateway.entries) {
    const path = entry.legacy.path.replace(/:(\w+)/g, '{$1}');
    const op = paths[path]?.[entry.legacy.method.toLowerCase()];
    assert.ok(op, `${entry.id} is described`);
    assert.equal(op['x-served-until'], '2024.1', entry.id);
    assert.equal(op['x-removed-in'], entry.removed, entry.id);
    assert.equal(op['x-sunset'], '2024-04-26', entry.id);
    const ok = (op['responses'] as Record<string, { headers?: Record<string, { schema: { examples: string[] } }> }>)['200'];
    assert.deepEqual(ok?.headers?.['Sunset']?.schema.examples, [UNTIL_2024_1], entry.id);
  }
});

test('from 2024.1 on the same gateway answers 410 to all 112, saying until when it served them', async () => {
  const later = await startGateway(core.url, { PLATFORM_RELEASE: '2024.1', GATEWAY_SERVE_UNTIL: '2024.1' });
  try {
    for (const entry of later.gateway.entries) {
      const res = await call(later.url, entry);
      assert.equal(res.status, 410, entry.id);
      assert.equal(res.headers.get('sunset'), UNTIL_2024_1, entry.id);
      assert.equal(res.headers.get('cache-control'), 'no-store', entry.id);
      assert.match(res.body as string, new RegExp(`was removed in release ${entry.removed.replace('.', '\\.')} and served by this gateway until release 2024\\.1; `), entry.id);
    }
  } finally {
    await later.close();
  }
});

test('unset, the schedule stands: in front of 2023.1 every operation is already gone, with Sunset at its own removal', async () => {
  const plain = await startGateway(core.url, { PLATFORM_RELEASE: '2023.1' });
  try {
    for (const entry of plain.gateway.entries) {
      const res = await call(plain.url, entry);
      assert.equal(res.status, 410, entry.id);
      assert.equal(res.headers.get('sunset'), calendar.dateOf(entry.removed).toUTCString(), entry.id);
      assert.doesNotMatch(res.body as string, /served by this gateway/, entry.id);
    }
    const getJob = await call(plain.url, plain.gateway.entries.find((e) => e.id === 'workflow-engine.getJob')!);
    assert.equal(getJob.body, 'getJob (GET /workflow_engine/getJob/:job_id) was removed in release 2022.2; use GET /operations-manager/jobs/:id instead');
  } finally {
    await plain.close();
  }
});

test('a per-operation date is judged against the clock: one still ahead is served, one already past is refused, the others follow the common value', async () => {
  const config = await testConfig({ CORE_URL: core.url, PLATFORM_RELEASE: '2023.1', GATEWAY_SERVE_UNTIL: '2024.1' });
  const operations = { 'workflow-engine.getJob': '2099-01-01', 'workflow-engine.cancelJob': '2023-06-01T00:00:00Z' };
  const dated = await startGateway(core.url, {}, { config: { ...config, gateway: { ...config.gateway, serveUntil: { ...config.gateway.serveUntil, operations } } } });
  try {
    const entry = (id: string): Entry => dated.gateway.entries.find((e) => e.id === id)!;
    const ahead = await call(dated.url, entry('workflow-engine.getJob'));
    assert.notEqual(ahead.status, 410);
    assert.equal(ahead.headers.get('sunset'), 'Thu, 01 Jan 2099 00:00:00 GMT');
    const past = await call(dated.url, entry('workflow-engine.cancelJob'));
    assert.equal(past.status, 410);
    assert.match(past.body as string, /served by this gateway until 2023-06-01T00:00:00Z; /);
    const common = await call(dated.url, entry('workflow-engine.getJobDetails'));
    assert.notEqual(common.status, 410);
    assert.equal(common.headers.get('sunset'), UNTIL_2024_1);
  } finally {
    await dated.close();
  }
});

test('attack: a setting that would extend routes nobody named, or names an id through __proto__, stops the gateway at start, naming it', async () => {
  const config = await testConfig({ CORE_URL: core.url, PLATFORM_RELEASE: '2023.1' });
  const start = (operations: Record<string, string>) => startGateway(core.url, {}, { config: { ...config, gateway: { ...config.gateway, serveUntil: { all: null, operations } } } });
  await assert.rejects(start({ getJobDetails: '2024.1' }), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.deepEqual(err.problems, ['config: gateway.serveUntil.operations.getJobDetails: key it by entry id, not by operation name (getJobDetails is workflow-engine.getJobDetails, workflow-engine.jobDetails)']);
    return true;
  });
  await assert.rejects(start(JSON.parse('{"__proto__": "2024.1"}') as Record<string, string>), /gateway\.serveUntil\.operations\.__proto__: no entry of the mapping table has this id/);
  await assert.rejects(start({ 'workflow-engine.getJob': '2024-02-30' }), /gateway\.serveUntil\.operations\.workflow-engine\.getJob is not a valid calendar date/);
});

test('the audit report says what breaks by the gateway\'s own end: not at the next release, at 2024.1', async () => {
  const getJob = gw.gateway.entries.find((e) => e.id === 'workflow-engine.getJob')!;
  assert.notEqual((await call(gw.url, getJob)).status, 410);
  await gw.gateway.audit.flush();
  const rows = async (query: string) => {
    const res = await request(`${gw.url}/gateway/audit/report${query}`, { headers: { authorization: auth['authorization']!, accept: 'application/json' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body as { target: string; rows: Array<{ entry: string; status: string }> });
  };
  // The default target is the release after 2023.1: 2023.2, which the gateway still serves getJob at.
  const next = await rows('');
  assert.equal(next.target, '2023.2');
  assert.equal(next.rows.find((r) => r.entry === getJob.id)?.status, 'deprecated');
  const at2024 = await rows('?target=2024.1');
  assert.equal(at2024.rows.find((r) => r.entry === getJob.id)?.status, 'breaks at target');
});
