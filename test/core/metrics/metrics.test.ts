/**
 * The core's `GET /metrics`: jobs and tasks by status as the store holds
 * them (fresh within a few seconds), jobs started and finished and task
 * durations as the engine runs them, request durations by route template
 * (never a raw path or an id), for administrators and a scraper holding
 * only Metrics.read; each app with its own registry.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, failing, job, manual, newVariable, startJob, workflow } from '../../helpers/engine.ts';
import { createScraper, samples, valueOf } from '../../helpers/metrics.ts';
import type { Scraper } from '../../helpers/metrics.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';
import { createCoreMetrics } from '../../../core/src/metrics/core-metrics.ts';
import { openThreadedStore } from '../../helpers/stores.ts';
import { eventually } from '../../helpers/wait.ts';
import { tempDir } from '../../faults/support.ts';

let core: RunningCore;
let scraper: Scraper;
const ids: Record<string, string> = {};
/** The metrics' clock runs this far ahead of the wall clock: a test moves it past the counts' cache instead of waiting. */
let ahead = 0;
/** How long the counts are cached (core-metrics.ts CACHE_MS). */
const COUNTS_CACHED_MS = 2000;

async function scrape(token: string | null = scraper.token): Promise<string> {
  const res = await fetch(`${core.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text();
}

before(async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  core = await startCore(store, {}, { metrics: createCoreMetrics(store, () => Date.now() + ahead) });
  await createWorkflow(core, workflow('m-ok', { a1: newVariable('x', 1) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  await createWorkflow(core, workflow('m-fail', { a1: failing() }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  await createWorkflow(core, workflow('m-wait', { a1: manual() }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  for (const name of ['m-ok', 'm-fail', 'm-wait']) ids[name] = await startJob(core, name);
  for (const id of Object.values(ids)) await job(core, id);
  scraper = await createScraper(core);
});
after(() => core.close());

test('jobs and tasks are counted by status as the store holds them, with jobs started and finished and task durations', async () => {
  const text = await scrape();
  const statuses: Record<string, number> = {};
  for (const id of Object.values(ids)) {
    const s = (await job(core, id)).status;
    statuses[s] = (statuses[s] ?? 0) + 1;
  }
  assert.deepEqual({ ...statuses }, { complete: 1, error: 1, running: 1 });
  for (const status of ['complete', 'error', 'running', 'canceled', 'paused', 'incomplete']) {
    assert.equal(valueOf(text, 'iap_jobs', { status }), statuses[status] ?? 0, `iap_jobs{status="${status}"}`);
  }
  const taskTotal = await core.store.collection('tasks').count(null);
  assert.equal(samples(text).filter((s) => s.name === 'iap_tasks').reduce((n, s) => n + s.value, 0), taskTotal, 'iap_tasks adds up to the tasks stored');
  assert.equal(valueOf(text, 'iap_store_documents', { collection: 'jobs' }), 3);
  assert.equal(valueOf(text, 'iap_jobs_started_total'), 3);
  assert.equal(valueOf(text, 'iap_jobs_finished_total', { status: 'complete' }), 1);
  assert.equal(valueOf(text, 'iap_jobs_finished_total', { status: 'error' }), 1);
  assert.ok((valueOf(text, 'iap_task_duration_seconds_count', { finish_state: 'success' }) ?? 0) >= 1, 'task durations observed');
  assert.ok((valueOf(text, 'iap_task_duration_seconds_count', { finish_state: 'error' }) ?? 0) >= 1, 'the failing task observed');
  assert.ok((valueOf(text, 'process_resident_memory_bytes') ?? 0) > 0, "Node's default process metrics");
  assert.equal(typeof valueOf(text, 'iap_event_loop_stalls_total'), 'number', 'the stall count');
});

test('the counts follow the store once their cache has expired', async () => {
  await scrape();
  const extra = await startJob(core, 'm-wait');
  await job(core, extra);
  ahead += COUNTS_CACHED_MS;
  assert.equal(valueOf(await scrape(), 'iap_jobs', { status: 'running' }), 2, 'a new running job shows once the cached counts are 2 s old');
  await core.request('/operations-manager/jobs/cancel', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jobIds: [extra] }) });
});

test('a job that ends after it started (a manual task finished) is counted as finished', async () => {
  const waiting = await startJob(core, 'm-wait');
  await job(core, waiting);
  const before = valueOf(await scrape(), 'iap_jobs_finished_total', { status: 'complete' }) ?? 0;
  const res = await core.request(`/operations-manager/jobs/${waiting}/tasks/a1/finish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ finish_state: 'success' }) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal((await job(core, waiting)).status, 'complete');
  assert.equal(valueOf(await scrape(), 'iap_jobs_finished_total', { status: 'complete' }), before + 1);
});

test('request durations are labelled by route template and status, never by a raw path or an id', async () => {
  await core.request(`/operations-manager/jobs/${ids['m-ok']}`);
  await core.request('/operations-manager/jobs/0000000000000000000000ff');
  await core.request('/no/such/path/0000000000000000000000ee');
  const text = await scrape();
  assert.ok((valueOf(text, 'http_request_duration_seconds_count', { service: 'core', method: 'GET', route: '/operations-manager/jobs/:id', status: '200' }) ?? 0) >= 1);
  assert.ok((valueOf(text, 'http_request_duration_seconds_count', { service: 'core', method: 'GET', route: '/operations-manager/jobs/:id', status: '404' }) ?? 0) >= 1);
  assert.ok((valueOf(text, 'http_request_duration_seconds_count', { service: 'core', method: 'GET', route: 'unmatched', status: '404' }) ?? 0) >= 1);
  for (const s of samples(text)) {
    for (const value of Object.values(s.labels)) assert.doesNotMatch(value, /[0-9a-f]{24}|\/no\/such/, `${s.name} carries ${value}`);
  }
});

test('a scraper holding only Metrics.read reads the metrics and nothing else; callers without it are refused', async () => {
  assert.ok((await scrape(scraper.token)).includes('iap_jobs'));
  assert.equal((await core.request('/operations-manager/jobs', { token: scraper.token })).status, 403);
  assert.ok((await scrape(core.adminToken)).includes('iap_jobs'), 'administrators read them too');
  assert.equal((await fetch(`${core.url}/metrics`)).status, 401);
  const other = await core.request('/oauth/serviceAccounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'no-metrics' }) });
  const { client_id: clientId, client_secret: secret } = (other.body as { data: { client_id: string; client_secret: string } }).data;
  const token = await core.request('/oauth/token', { method: 'POST', token: null, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=${clientId}&client_secret=${secret}` });
  assert.equal((await core.request('/metrics', { token: (token.body as { access_token: string }).access_token })).status, 403);
});

test('each app has its own registry: a second core in the same process counts only its own jobs', async () => {
  const second = await startCore(SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }));
  try {
    const text = await (await fetch(`${second.url}/metrics`, { headers: { authorization: `Bearer ${second.adminToken}` } })).text();
    assert.equal(valueOf(text, 'iap_jobs_started_total'), 0);
    assert.equal(valueOf(text, 'iap_jobs', { status: 'running' }), 0);
  } finally {
    await second.close();
  }
});

test('with metrics off, GET /metrics is not served', async () => {
  const off = await startCore(SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }), { METRICS_ENABLED: 'false' });
  try {
    assert.equal((await off.request('/metrics')).status, 404);
    assert.equal(off.core.metrics, null);
  } finally {
    await off.close();
  }
});

test('relayed requests are counted by adapter and outcome, and timed by adapter, as prom-client writes them', async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  const metrics = createCoreMetrics(store);
  metrics.relay('NSO A', 'ok', 0.002);
  metrics.relay('NSO A', 'ok', 0.001);
  metrics.relay('NSO A', 'error', 0.3);
  metrics.relay('other', 'ok', 12);
  const text = await metrics.registry.metrics();
  assert.equal(valueOf(text, 'iap_relay_requests_total', { adapter: 'NSO A', outcome: 'ok' }), 2);
  assert.equal(valueOf(text, 'iap_relay_requests_total', { adapter: 'NSO A', outcome: 'error' }), 1);
  assert.equal(valueOf(text, 'iap_relay_requests_total', { adapter: 'other', outcome: 'ok' }), 1);
  assert.equal(valueOf(text, 'iap_relay_requests_total', { adapter: 'other', outcome: 'error' }), undefined, 'no outcome that did not happen');
  // Upper-inclusive buckets: 0.001 counts in le="0.001".
  assert.equal(valueOf(text, 'iap_relay_request_duration_seconds_bucket', { adapter: 'NSO A', le: '0.001' }), 1);
  assert.equal(valueOf(text, 'iap_relay_request_duration_seconds_bucket', { adapter: 'NSO A', le: '0.0025' }), 2);
  assert.equal(valueOf(text, 'iap_relay_request_duration_seconds_bucket', { adapter: 'NSO A', le: '0.5' }), 3);
  assert.equal(valueOf(text, 'iap_relay_request_duration_seconds_bucket', { adapter: 'other', le: '10' }), 0);
  assert.equal(valueOf(text, 'iap_relay_request_duration_seconds_bucket', { adapter: 'other', le: '+Inf' }), 1);
  assert.equal(valueOf(text, 'iap_relay_request_duration_seconds_count', { adapter: 'NSO A' }), 3);
  assert.ok(Math.abs(valueOf(text, 'iap_relay_request_duration_seconds_sum', { adapter: 'NSO A' })! - 0.303) < 1e-9);
  // Counted since the last scrape, not twice.
  assert.equal(valueOf(await metrics.registry.metrics(), 'iap_relay_requests_total', { adapter: 'NSO A', outcome: 'ok' }), 2);
  store.close();
});

test('with a search thread, the store reports it up, the searches it holds, and its restarts; a store without one reports none', async () => {
  assert.equal(valueOf(await scrape(), 'iap_store_search_thread_up'), undefined, 'a :memory: store has no search thread');
  const dir = tempDir('metrics-search-thread');
  const store = await openThreadedStore(dir.path);
  try {
    const metrics = createCoreMetrics(store);
    const searched = store.collection('jobs').searchJson({ where: null, sort: [], skip: 0, limit: 1 }, [], 'account:scraped');
    // The thread answers through the event loop, so the search is still held while the metrics are collected.
    let text = await metrics.registry.metrics();
    assert.equal(valueOf(text, 'iap_store_search_thread_up'), 1);
    assert.equal(valueOf(text, 'iap_store_searches_held'), 1);
    assert.equal(valueOf(text, 'iap_store_search_thread_restarts_total'), 0);
    await searched;
    await (store as unknown as { searches: { worker: { terminate(): Promise<number> } } }).searches.worker.terminate();
    await eventually(() => store.searchThread().restarts === 1, { what: 'the thread\'s death is seen', timeoutMs: 5000 });
    text = await metrics.registry.metrics();
    assert.equal(valueOf(text, 'iap_store_searches_held'), 0);
    assert.equal(valueOf(text, 'iap_store_search_thread_restarts_total'), 1);
    if (store.searchThread().state !== 'ready') assert.equal(valueOf(text, 'iap_store_search_thread_up'), 0);
    await eventually(() => store.searchesOffLoop, { what: 'the thread is started again', timeoutMs: 20_000 });
    text = await metrics.registry.metrics();
    assert.equal(valueOf(text, 'iap_store_search_thread_up'), 1);
    assert.equal(valueOf(text, 'iap_store_search_thread_restarts_total'), 1, 'counted once, however often scraped');
  } finally {
    await store.close();
    dir.remove();
  }
});
