/**
 * GET /gateway/audit/report through the real gateway in front of the real
 * core: legacy calls made over HTTP come back as report rows (JSON, CSV,
 * HTML), and only administrators may read them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, manual, startJob, workflow } from '../../helpers/engine.ts';
import { startGateway } from '../../helpers/gateway.ts';
import type { RunningGateway } from '../../helpers/gateway.ts';
import { makeUser } from '../../helpers/users.ts';
import type { TestUser } from '../../helpers/users.ts';
import { eventually } from '../../helpers/wait.ts';

let core: RunningCore;
let gw: RunningGateway;
let operator: TestUser;
let jobId: string;
/** What the recorder stored, by `client/entry`: the report must say exactly this. */
const stored = new Map<string, { times: number[]; outcomes: Record<string, number> }>();
const injectedAt = Date.now();

const admin = () => ({ authorization: `Bearer ${core.adminToken}` });
const iso = (ms: number) => new Date(ms).toISOString();
const first = (key: string) => iso(Math.min(...stored.get(key)!.times));
const last = (key: string) => iso(Math.max(...stored.get(key)!.times));
const outcomes = (key: string) => ({ rewritten: 0, refused: 0, failed: 0, ...stored.get(key)!.outcomes });

async function legacy(path: string, init: { method?: string; token?: string | null; agent: string; body?: unknown }): Promise<number> {
  const headers: Record<string, string> = { 'user-agent': init.agent, 'content-type': 'application/json' };
  if (init.token) headers['authorization'] = `Bearer ${init.token}`;
  const res = await request(`${gw.url}${path}`, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
  return res.status;
}

before(async () => {
  core = await startCore((await openTestStore()));
  gw = await startGateway(core.url);
  operator = await makeUser(core, 'operator');
  await createWorkflow(core, workflow('audit-wait', { c3d4: manual() }, [['workflow_start', 'c3d4'], ['c3d4', 'workflow_end']]));
  jobId = await startJob(core, 'audit-wait');
  assert.equal(await legacy('/workflow_engine/getJob/' + jobId, { token: core.adminToken, agent: 'nightly-cleanup/2.1' }), 200);
  assert.equal(await legacy('/workflow_engine/cancelJob', { method: 'POST', token: core.adminToken, agent: 'nightly-cleanup/2.1', body: { job_id: jobId } }), 200);
  assert.equal(await legacy('/workflow_engine/getJob/' + jobId, { token: core.adminToken, agent: 'nightly-cleanup/2.1' }), 200);
  // The core refuses a caller without roles, and one without credentials.
  assert.ok(await legacy('/workflow_engine/getJob/' + jobId, { token: operator.token, agent: 'ops-dashboard/0.9' }) >= 400);
  assert.ok(await legacy('/workflow_engine/getJob/' + jobId, { token: null, agent: 'curl/8.5.0' }) >= 400);
  // Records follow the answers once the caller's name is known: wait until all five are stored.
  let found = 0;
  const docs = await eventually(async () => {
    await gw.gateway.audit.flush();
    const { docs } = await gw.store.collection('audit').search({ where: null, sort: [], skip: 0, limit: 100 });
    found = docs.length;
    return docs.length === 5 ? docs : null;
  }, { timeoutMs: 2000, everyMs: 20 }).catch(() => assert.fail(`expected 5 audit records, found ${found}`));
  for (const d of docs) {
    const c = d['client'] as { account: string | null; address: string };
    const key = `${c.account ?? c.address}/${String(d['entry'])}`;
    const entry = stored.get(key) ?? { times: [], outcomes: {} };
    entry.times.push(d['time'] as number);
    entry.outcomes[String(d['outcome'])] = (entry.outcomes[String(d['outcome'])] ?? 0) + 1;
    stored.set(key, entry);
  }
  // Two calls of entries not in the table (as if dropped from it); recorded just before the report is asked, so only a flush brings them in.
  const retired = { source: 'workflow-engine', outcome: 'refused', status: 410, latencyMs: 1, replacement: null } as const;
  gw.gateway.audit.record({ ...retired, time: injectedAt, operation: 'getRetiredThing', entry: 'audit-test.getRetiredThing', client: { account: 'etl-robot', clientId: null, address: '10.2.0.7', userAgent: 'etl/1' }, deprecated: '2020.2', removed: '2021.2' });
  gw.gateway.audit.record({ ...retired, outcome: 'rewritten', status: 200, time: injectedAt, operation: 'getLaterThing', entry: 'audit-test.getLaterThing', client: { account: 'etl-robot', clientId: null, address: '10.2.0.7', userAgent: 'etl/1' }, deprecated: '2022.1', removed: '2023.2' });
});

after(async () => {
  await gw.close();
  await core.close();
});

const GET_JOB = { operation: 'getJob', entry: 'workflow-engine.getJob', legacy: 'GET /workflow_engine/getJob/:job_id', replacement: 'GET /operations-manager/jobs/:id', deprecated: '2021.2', removed: '2022.2' };
const CANCEL = { operation: 'cancelJob', entry: 'workflow-engine.cancelJob', legacy: 'POST /workflow_engine/cancelJob', replacement: 'POST /operations-manager/jobs/cancel', deprecated: '2021.2', removed: '2022.2' };

function expectedRows(): unknown[] {
  const seen = (key: string) => ({ firstSeen: first(key), lastSeen: last(key), outcomes: outcomes(key) });
  const once = (o: 'rewritten' | 'refused' | 'failed') => ({ rewritten: 0, refused: 0, failed: 0, [o]: 1 });
  return [
    { status: 'broken now', client: 'etl-robot', clientKind: 'account', userAgents: ['etl/1'], operation: 'getRetiredThing', entry: 'audit-test.getRetiredThing', legacy: null, calls: 1, firstSeen: iso(injectedAt), lastSeen: iso(injectedAt), outcomes: once('refused'), replacement: null, deprecated: '2020.2', removed: '2021.2' },
    { status: 'breaks at target', client: 'admin', clientKind: 'account', userAgents: ['nightly-cleanup/2.1'], ...GET_JOB, calls: 2, ...seen('admin/workflow-engine.getJob') },
    { status: 'breaks at target', client: '127.0.0.1', clientKind: 'address', userAgents: ['curl/8.5.0'], ...GET_JOB, calls: 1, ...seen('127.0.0.1/workflow-engine.getJob') },
    { status: 'breaks at target', client: 'admin', clientKind: 'account', userAgents: ['nightly-cleanup/2.1'], ...CANCEL, calls: 1, ...seen('admin/workflow-engine.cancelJob') },
    { status: 'breaks at target', client: 'operator', clientKind: 'account', userAgents: ['ops-dashboard/0.9'], ...GET_JOB, calls: 1, ...seen('operator/workflow-engine.getJob') },
    { status: 'deprecated', client: 'etl-robot', clientKind: 'account', userAgents: ['etl/1'], operation: 'getLaterThing', entry: 'audit-test.getLaterThing', legacy: null, calls: 1, firstSeen: iso(injectedAt), lastSeen: iso(injectedAt), outcomes: once('rewritten'), replacement: null, deprecated: '2022.1', removed: '2023.2' },
  ];
}

test('JSON: one row per client and operation, most urgent first, including calls recorded a moment ago', async () => {
  const res = await request(`${gw.url}/gateway/audit/report?format=json&target=2022.2`, { headers: admin() });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type')!, /^application\/json/);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const body = res.body as { release: string; target: string; generatedAt: string; since: null; until: null; historyBegins: null; rows: unknown[]; series: { bucket: string; buckets: string[]; operations: Array<{ operation: string; total: number; counts: number[] }> } };
  assert.deepEqual(Object.keys(body), ['release', 'target', 'generatedAt', 'since', 'until', 'historyBegins', 'rows', 'series']);
  assert.deepEqual([body.release, body.target, body.since, body.until], ['2022.1', '2022.2', null, null]);
  assert.ok(Math.abs(Date.parse(body.generatedAt) - Date.now()) < 60_000);
  assert.deepEqual(body.rows, expectedRows());
  assert.equal(body.series.bucket, 'hour');
  assert.deepEqual(body.series.operations.map((o) => [o.operation, o.total]), [['getJob', 4], ['cancelJob', 1], ['getLaterThing', 1], ['getRetiredThing', 1]]);
  for (const o of body.series.operations) assert.equal(o.counts.reduce((a, b) => a + b, 0), o.total);
});

test('without a target the report looks one release ahead; a later target turns deprecated rows into breaking ones', async () => {
  const plain = await request(`${gw.url}/gateway/audit/report`, { headers: admin() });
  assert.equal((plain.body as { target: string }).target, '2022.2');
  const later = await request(`${gw.url}/gateway/audit/report?target=2023.2`, { headers: admin() });
  const rows = (later.body as { rows: Array<{ status: string; operation: string }> }).rows;
  assert.deepEqual(rows.map((r) => r.status), ['broken now', 'breaks at target', 'breaks at target', 'breaks at target', 'breaks at target', 'breaks at target']);
  assert.equal(rows.find((r) => r.operation === 'getLaterThing')!.status, 'breaks at target');
});

test('since and until narrow the calls; the token query parameter is accepted as credentials', async () => {
  const future = await request(`${gw.url}/gateway/audit/report?since=2999-01-01&token=${core.adminToken}`);
  assert.equal(future.status, 200, JSON.stringify(future.body));
  assert.deepEqual((future.body as { rows: unknown[]; since: string }).rows, []);
  assert.equal((future.body as { since: string }).since, '2999-01-01T00:00:00.000Z');
  assert.ok(Math.min(...[...stored.values()].flatMap((s) => s.times)) > injectedAt, 'the calls over HTTP came after the injected ones');
  const clients = async (query: string) => ((await request(`${gw.url}/gateway/audit/report?${query}`, { headers: admin() })).body as { rows: Array<{ client: string; operation: string }> }).rows.map((r) => `${r.client}/${r.operation}`);
  assert.deepEqual(await clients(`until=${injectedAt}`), [], 'until is exclusive');
  assert.deepEqual(await clients(`until=${injectedAt + 1}`), ['etl-robot/getRetiredThing', 'etl-robot/getLaterThing']);
  assert.deepEqual(await clients(`since=${injectedAt + 1}`), ['admin/getJob', '127.0.0.1/getJob', 'admin/cancelJob', 'operator/getJob']);
  assert.deepEqual(await clients(`since=${injectedAt}&until=${injectedAt + 1}`), ['etl-robot/getRetiredThing', 'etl-robot/getLaterThing'], 'since is inclusive');
});

test('CSV: a header line, then one RFC 4180 line per row in the same order', async () => {
  const res = await request(`${gw.url}/gateway/audit/report?format=csv&target=2022.2`, { headers: admin() });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/csv; charset=utf-8/);
  assert.equal(res.headers.get('content-disposition'), 'attachment; filename="legacy-audit-2022.1-to-2022.2.csv"');
  const at = (key: string) => { const o = outcomes(key); return `${first(key)},${last(key)},${o.rewritten},${o.refused},${o.failed}`; };
  const now = `${iso(injectedAt)},${iso(injectedAt)}`;
  assert.equal(res.body, [
    'status,client,client_kind,user_agents,operation,entry,legacy,calls,first_seen,last_seen,rewritten,refused,failed,replacement,deprecated,removed,history_begins',
    `broken now,etl-robot,account,etl/1,getRetiredThing,audit-test.getRetiredThing,,1,${now},0,1,0,,2020.2,2021.2,`,
    `breaks at target,admin,account,nightly-cleanup/2.1,getJob,workflow-engine.getJob,GET /workflow_engine/getJob/:job_id,2,${at('admin/workflow-engine.getJob')},GET /operations-manager/jobs/:id,2021.2,2022.2,`,
    `breaks at target,127.0.0.1,address,curl/8.5.0,getJob,workflow-engine.getJob,GET /workflow_engine/getJob/:job_id,1,${at('127.0.0.1/workflow-engine.getJob')},GET /operations-manager/jobs/:id,2021.2,2022.2,`,
    `breaks at target,admin,account,nightly-cleanup/2.1,cancelJob,workflow-engine.cancelJob,POST /workflow_engine/cancelJob,1,${at('admin/workflow-engine.cancelJob')},POST /operations-manager/jobs/cancel,2021.2,2022.2,`,
    `breaks at target,operator,account,ops-dashboard/0.9,getJob,workflow-engine.getJob,GET /workflow_engine/getJob/:job_id,1,${at('operator/workflow-engine.getJob')},GET /operations-manager/jobs/:id,2021.2,2022.2,`,
    `deprecated,etl-robot,account,etl/1,getLaterThing,audit-test.getLaterThing,,1,${now},1,0,0,,2022.1,2023.2,`,
    '',
  ].join('\r\n'));
});

test('HTML: a self-contained page with the security headers, also chosen by a browser\'s Accept header', async () => {
  for (const res of [
    await request(`${gw.url}/gateway/audit/report?format=html&target=2022.2`, { headers: admin() }),
    await request(`${gw.url}/gateway/audit/report?target=2022.2`, { headers: { ...admin(), accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } }),
  ]) {
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('cross-origin-opener-policy'), 'same-origin');
    assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin');
    assert.equal(res.headers.get('cache-control'), 'no-store', 'a report names clients and addresses: no shared cache keeps it');
    const html = res.body as string;
    assert.match(html, /<title>Legacy API migration audit: 2022\.1 → 2022\.2<\/title>/);
    assert.match(html, /<svg viewBox=/);
    assert.equal((html.match(/<span class="badge broken">broken now<\/span>/g) ?? []).length, 2, 'one row and the key');
    assert.equal((html.match(/<span class="badge target">breaks at target<\/span>/g) ?? []).length, 5);
    assert.doesNotMatch(html, /<script|<link|src="http|url\(/i);
  }
});

test('401 without credentials or with credentials the core does not accept, before any parameter is looked at', async () => {
  const anonymous = await request(`${gw.url}/gateway/audit/report?target=nonsense`);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('x-error-code'), 'UNAUTHENTICATED');
  assert.ok(anonymous.headers.get('www-authenticate'));
  const forged = await request(`${gw.url}/gateway/audit/report`, { headers: { authorization: 'Bearer not-a-token' } });
  assert.equal(forged.status, 401);
});

test('403 for a valid caller without the Authorization admin role', async () => {
  const res = await request(`${gw.url}/gateway/audit/report?format=csv`, { headers: { authorization: `Bearer ${operator.token}` } });
  assert.equal(res.status, 403);
  assert.equal(res.headers.get('x-error-code'), 'FORBIDDEN');
  assert.doesNotMatch(JSON.stringify(res.body), /etl-robot|nightly/);
});

test('400 naming each bad parameter', async () => {
  const cases: Array<[string, string[]]> = [
    ['target=22', ['target']],
    ['target=2022.2.1', ['target']],
    ['target=2021.2', ['target']],
    ['format=pdf', ['format']],
    ['since=yesterday&until=2024-02-30', ['since', 'until']],
    ['since=2024-05-02&until=2024-05-01', ['until']],
    ['limit=5', ['limit']],
    ['target=2022.2&target=2023.1', ['target']],
  ];
  for (const [query, parameters] of cases) {
    const res = await request(`${gw.url}/gateway/audit/report?${query}`, { headers: admin() });
    assert.equal(res.status, 400, query);
    const body = res.body as { code: string; message: string; details: Array<{ parameter: string }> };
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.deepEqual(body.details.map((d) => d.parameter), parameters, query);
    for (const p of parameters) assert.match(body.message, new RegExp(p));
  }
});

test('only GET reads the report', async () => {
  const res = await request(`${gw.url}/gateway/audit/report`, { method: 'POST', headers: admin() });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'GET, HEAD');
});
