/**
 * Legacy operations through the real gateway in front of the real core:
 * rewritten answers in the legacy shapes with RFC 9745 / RFC 8594 headers,
 * 410 from the removal release on or inside a brownout, the legacy error
 * form, and an audit record for every call.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../helpers/stores.ts';
import { request, startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { createWorkflow, job, manual, startJob, workflow } from '../helpers/engine.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/wait.ts';

let core: RunningCore;
let gw: RunningGateway;
let auth: Record<string, string>;

before(async () => {
  core = await startCore((await openTestStore()));
  gw = await startGateway(core.url);
  auth = { authorization: `Bearer ${core.adminToken}`, 'content-type': 'application/json', 'user-agent': 'legacy-script/1.0' };
  await createWorkflow(core, workflow('legacy-wait', { c3d4: manual() }, [['workflow_start', 'c3d4'], ['c3d4', 'workflow_end']]));
});
after(async () => {
  await gw.close();
  await core.close();
});

const calendarSeconds = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

test('a deprecated operation is rewritten and answers the legacy shape with Deprecation, Sunset and Link', async () => {
  const id = await startJob(core, 'legacy-wait');
  const res = await request(`${gw.url}/workflow_engine/cancelJob`, { method: 'POST', headers: auth, body: JSON.stringify({ job_id: id }) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal((res.body as { _id: string; status: string })._id, id);
  assert.equal((res.body as { status: string }).status, 'canceled', 'the legacy answer is the updated job');
  assert.equal(res.headers.get('deprecation'), `@${calendarSeconds('2021-10-29')}`);
  assert.equal(res.headers.get('sunset'), new Date('2022-10-28T00:00:00Z').toUTCString());
  assert.equal(res.headers.get('link'), '</operations-manager/jobs/cancel>; rel="successor-version"');
  assert.equal((await job(core, id)).status, 'canceled');
});

test('an unwrapped legacy answer is byte for byte the envelope\'s data serialised, though copied rather than re-serialised', async () => {
  const id = await startJob(core, 'legacy-wait');
  const data = async (): Promise<string> => JSON.stringify(((await (await fetch(`${core.url}/operations-manager/jobs/${id}`, { headers: auth })).json()) as { data: unknown }).data);
  // The engine may still be moving the job on: compare a legacy answer read between two equal new ones.
  let before = await data();
  let legacy: Response;
  let text: string;
  for (;;) {
    legacy = await fetch(`${gw.url}/workflow_engine/getJob/${id}`, { headers: auth });
    text = await legacy.text();
    const after = await data();
    if (after === before) break;
    before = after;
  }
  assert.equal(legacy.status, 200);
  assert.equal(text, before);
  assert.equal(Number(legacy.headers.get('content-length')), Buffer.byteLength(text));
  assert.equal(legacy.headers.get('content-type'), 'application/json; charset=utf-8');
  const head = await fetch(`${gw.url}/workflow_engine/getJob/${id}`, { method: 'HEAD', headers: auth });
  assert.equal(Number(head.headers.get('content-length')), Buffer.byteLength(text), 'HEAD announces the same length');
});

test('a legacy search translates its MongoDB-style query and answers the results wrapper', async () => {
  const id = await startJob(core, 'legacy-wait');
  const res = await request(`${gw.url}/workflow_engine/jobs/search`, { method: 'POST', headers: auth, body: JSON.stringify({ options: { query: { name: { $regex: '^legacy-' }, _id: { $in: [id] } }, skip: 0, limit: 5 } }) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as { results: Array<{ _id: string }>; skip: number; limit: number; total: number };
  assert.deepEqual(body.results.map((r) => r._id), [id]);
  assert.deepEqual([body.skip, body.limit, body.total], [0, 5, 1]);
});

test('a query the new search cannot express is refused the legacy way, naming what', async () => {
  const res = await request(`${gw.url}/workflow_engine/jobs/search`, { method: 'POST', headers: auth, body: JSON.stringify({ options: { query: { $where: 'sleep(100)' } } }) });
  assert.equal(res.status, 500);
  assert.match(res.body as string, /\$where cannot be expressed/);
});

test('a failing legacy call answers a plain JSON string with status 500', async () => {
  const res = await request(`${gw.url}/workflow_engine/getJob/${'f'.repeat(24)}`, { headers: auth });
  assert.equal(res.status, 500);
  assert.equal(typeof res.body, 'string');
  assert.match(res.body as string, /was not found/);
});

test('from its removal release an operation answers 410 with a plain string naming its replacement', async () => {
  const removed = await startGateway(core.url, { PLATFORM_RELEASE: '2022.2' });
  try {
    const res = await request(`${removed.url}/workflow_engine/cancelJob`, { method: 'POST', headers: auth, body: JSON.stringify({ job_id: 'a'.repeat(24) }) });
    assert.equal(res.status, 410);
    assert.equal(res.body, 'cancelJob (POST /workflow_engine/cancelJob) was removed in release 2022.2; use POST /operations-manager/jobs/cancel instead');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.ok(res.headers.get('sunset'));
  } finally {
    await removed.close();
  }
});

test('inside a brownout window a deprecated operation already answers as removed', async () => {
  const config = { ...(await (await import('../helpers/core.ts')).testConfig({ CORE_URL: core.url })) };
  const brownout = await startGateway(core.url, {}, { config: { ...config, gateway: { ...config.gateway, brownouts: [{ operations: ['getJob'], from: '2000-01-01T00:00:00Z', until: '2100-01-01T00:00:00Z' }] } } });
  try {
    assert.equal((await request(`${brownout.url}/workflow_engine/getJob/${'a'.repeat(24)}`, { headers: auth })).status, 410);
    assert.notEqual((await request(`${brownout.url}/workflow_engine/cancelJob`, { method: 'POST', headers: auth, body: '{}' })).status, 410);
  } finally {
    await brownout.close();
  }
});

test('every legacy call is recorded for the audit, with the caller\'s account and the outcome', async () => {
  // A record follows its answer once the caller's name is known: flush until the three are stored.
  const expected = ['cancelJob:rewritten', 'searchJobs:failed', 'getJob:failed'];
  let byOperation = new Map<string, Record<string, unknown>>();
  await eventually(async () => {
    await gw.gateway.audit.flush();
    const page = await gw.store.collection('audit').search({ where: null, sort: [], skip: 0, limit: 100 });
    byOperation = new Map(page.docs.map((d) => [`${d['operation']}:${d['outcome']}`, d]));
    return expected.every((k) => byOperation.has(k));
  }, { timeoutMs: 2000 }).catch(() => undefined);
  for (const k of expected) assert.ok(byOperation.has(k), `${k} recorded; found ${[...byOperation.keys()].join(', ')}`);
  const record = byOperation.get('cancelJob:rewritten')!;
  assert.deepEqual((record['client'] as { account: string; userAgent: string }).account, 'admin');
  assert.equal((record['client'] as { userAgent: string }).userAgent, 'legacy-script/1.0');
  assert.equal(record['status'], 200);
  assert.equal(record['removed'], '2022.2');
});

test('without credentials a legacy call answers 401, and without the role 403, as plain strings', async () => {
  const anonymous = await request(`${gw.url}/workflow_engine/getJob/${'a'.repeat(24)}`);
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.body, 'Authentication is required');
  const { makeUser } = await import('../helpers/users.ts');
  const nobody = await makeUser(core, 'legacy-nobody');
  const refused = await request(`${gw.url}/workflow_engine/getJob/${'a'.repeat(24)}`, { headers: { authorization: `Bearer ${nobody.token}` } });
  assert.equal(refused.status, 403);
  assert.equal(typeof refused.body, 'string');
});

test('list values reach the core with their commas, and a comma inside one value stays inside it', async () => {
  const { encodeValue } = await import('../../gateway/src/core-client.ts');
  assert.equal(encodeValue('running,paused'), 'running,paused');
  assert.equal(encodeValue('a%2Cb,c d'), 'a%2Cb,c%20d');
});

test('a legacy answer carries the caller\'s X-Request-Id (or a new one), and HEAD answers the headers alone', async () => {
  const id = await startJob(core, 'legacy-wait');
  const mine = await request(`${gw.url}/workflow_engine/getJob/${id}`, { headers: { ...auth, 'x-request-id': 'legacy-trace-42' } });
  assert.equal(mine.status, 200);
  assert.equal(mine.headers.get('x-request-id'), 'legacy-trace-42');
  assert.equal(mine.headers.get('content-type'), 'application/json; charset=utf-8');
  const fresh = await request(`${gw.url}/workflow_engine/getJob/${id}`, { headers: { ...auth, 'x-request-id': 'not valid!' } });
  assert.match(fresh.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'a malformed id is replaced');
  const head = await fetch(`${gw.url}/workflow_engine/getJob/${id}`, { method: 'HEAD', headers: auth });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), mine.headers.get('content-length'));
  assert.ok(head.headers.get('deprecation'));
  assert.equal(await head.text(), '');
});

test('a method the legacy path does not take is not legacy: it reaches the core, which has no such operation', async () => {
  const res = await request(`${gw.url}/workflow_engine/getJob/0000000000000000000000a1`, { method: 'DELETE', headers: auth });
  assert.equal(res.status, 404);
  assert.equal(res.headers.get('deprecation'), null);
  assert.equal(res.headers.get('x-error-code'), 'NOT_FOUND');
});

test('text that is not valid Unicode, where the call puts it in a URL, is named the legacy way rather than failing inside', async () => {
  // A lone surrogate is valid JSON but cannot be percent-encoded (found by the hostile fuzz, seed 24025045).
  for (const [path, body] of [['/accounts/search', '{"inactive":"\\u0000\\udfff"}'], ['/workflow_engine/job/watchers/watch', '{"job_id":"\\udfff","watchers":[]}']] as const) {
    const res = await request(`${gw.url}${path}`, { method: 'POST', headers: auth, body });
    assert.equal(res.status, 500, path);
    assert.match(String(res.body), /not valid Unicode/, path);
  }
});

test('if recording a call ever throws, the caller still gets an answer and the gateway goes on serving', async () => {
  const audit = gw.gateway.audit;
  const record = audit.record;
  audit.record = () => {
    throw new Error('planted: the recorder failed');
  };
  try {
    const res = await request(`${gw.url}/workflow_engine/getJob/0000000000000000000000a1`, { headers: auth });
    assert.equal(res.status, 500);
    assert.equal(res.body, 'Internal error');
    assert.ok(res.headers.get('x-request-id'));
  } finally {
    audit.record = record;
  }
  const again = await request(`${gw.url}/workflow_engine/getJob/0000000000000000000000a1`, { headers: auth });
  assert.equal(again.status, 500);
  assert.match(String(again.body), /not found/i, 'served again: the core\'s own answer for an unknown job, the legacy way');
  assert.equal((await request(`${gw.url}/gateway/health/live`)).status, 200);
});
