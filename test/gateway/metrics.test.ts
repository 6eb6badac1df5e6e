/**
 * The gateway's `GET /metrics`: legacy calls by operation, outcome and
 * removal release; request durations labelled by the mapping's path
 * template or `passthrough`, never a raw path; upstream errors; the audit
 * backlog. Served to holders of Metrics.read or Metrics.admin, asked of the
 * core as the audit report asks.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { createScraper, samples, valueOf } from '../helpers/metrics.ts';
import type { Scraper } from '../helpers/metrics.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';

let core: RunningCore;
let gw: RunningGateway;
let scraper: Scraper;

async function scrape(token: string | null): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, text: await res.text() };
}

before(async () => {
  core = await startCore(SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }));
  gw = await startGateway(core.url);
  scraper = await createScraper(core);
});
after(async () => {
  await gw.close();
  await core.close();
});

test('legacy calls are counted by operation, outcome and removal release, and timed by their mapping template', async () => {
  const auth = { authorization: `Bearer ${core.adminToken}` };
  for (let i = 0; i < 3; i += 1) assert.equal((await fetch(`${gw.url}/user-management/accounts`, { headers: auth })).status, 200);
  assert.equal((await fetch(`${gw.url}/workflow_engine/getJobDeep/0000000000000000000000a1`, { headers: auth })).status, 410);
  assert.equal((await fetch(`${gw.url}/user-management/accounts`)).status, 401);
  const { status, text } = await scrape(scraper.token);
  assert.equal(status, 200);
  assert.equal(valueOf(text, 'iap_legacy_calls_total', { operation: 'GET /user-management/accounts', outcome: 'rewritten', removed_in: '2022.2' }), 3);
  assert.equal(valueOf(text, 'iap_legacy_calls_total', { operation: 'GET /user-management/accounts', outcome: 'failed', removed_in: '2022.2' }), 1);
  assert.equal(valueOf(text, 'iap_legacy_calls_total', { operation: 'getJobDeep', outcome: 'refused', removed_in: '2021.1' }), 1);
  assert.equal(valueOf(text, 'http_request_duration_seconds_count', { service: 'gateway', method: 'GET', route: '/workflow_engine/getJobDeep/:job_id', status: '410' }), 1);
  assert.equal(valueOf(text, 'http_request_duration_seconds_count', { service: 'gateway', method: 'GET', route: '/user-management/accounts', status: '200' }), 3);
});

test('calls passed through are timed under one bounded label, and no label is a raw path', async () => {
  const auth = { authorization: `Bearer ${core.adminToken}` };
  await (await fetch(`${gw.url}/operations-manager/jobs/0000000000000000000000b2`, { headers: auth })).arrayBuffer();
  await (await fetch(`${gw.url}/whoami`, { headers: auth })).arrayBuffer();
  const { text } = await scrape(core.adminToken);
  assert.equal(valueOf(text, 'http_request_duration_seconds_count', { service: 'gateway', method: 'GET', route: 'passthrough', status: '404' }), 1);
  assert.ok((valueOf(text, 'http_request_duration_seconds_count', { service: 'gateway', method: 'GET', route: 'passthrough', status: '200' }) ?? 0) >= 1);
  const routes = new Set(samples(text).flatMap((s) => (s.labels['route'] ? [s.labels['route']] : [])));
  for (const route of routes) assert.ok(route === 'passthrough' || route.startsWith('/'), route);
  for (const route of routes) assert.doesNotMatch(route, /[0-9a-f]{24}/, route);
});

test('the pass-through\'s own refusals are counted under its label as well: a path leaving the base path (400) and a body over the limit (413)', async () => {
  const { request } = await import('node:http');
  const raw = (method: string, path: string, headers: Record<string, string>): Promise<number> =>
    new Promise((resolve, reject) => {
      // A path given as it is: a URL would resolve the encoded dot segment away.
      const { hostname, port } = new URL(gw.url);
      const req = request({ hostname, port, path, method, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      // The declared length is refused before any body is read, so none is sent.
      req.end();
    });
  const before = await scrape(core.adminToken);
  const count = (text: string, status: string, method: string): number => valueOf(text, 'http_request_duration_seconds_count', { service: 'gateway', method, route: 'passthrough', status }) ?? 0;
  assert.equal(await raw('GET', '/operations-manager/%2e%2e/whoami', {}), 400);
  assert.equal(await raw('PUT', '/operations-manager/jobs/0000000000000000000000b3', { 'content-type': 'application/json', 'content-length': String(2 * 1024 * 1024) }), 413);
  const after = await scrape(core.adminToken);
  assert.equal(count(after.text, '400', 'GET') - count(before.text, '400', 'GET'), 1);
  assert.equal(count(after.text, '413', 'PUT') - count(before.text, '413', 'PUT'), 1);
});

test('the metrics are refused without credentials and to callers without a metrics role', async () => {
  assert.equal((await scrape(null)).status, 401);
  assert.equal((await scrape('f'.repeat(64))).status, 401);
  const other = await core.request('/oauth/serviceAccounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'not-a-scraper' }) });
  const { client_id: clientId, client_secret: secret } = (other.body as { data: { client_id: string; client_secret: string } }).data;
  const token = await core.request('/oauth/token', { method: 'POST', token: null, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=${clientId}&client_secret=${secret}` });
  const refused = await scrape((token.body as { access_token: string }).access_token);
  assert.equal(refused.status, 403);
  assert.doesNotMatch(refused.text, /iap_/);
});

test('a core that cannot be reached is counted as an upstream error', async () => {
  const lonely = await startGateway('http://127.0.0.1:1');
  try {
    assert.equal((await fetch(`${lonely.url}/operations-manager/jobs`)).status, 502);
    const text = await lonely.gateway.metrics!.registry.metrics();
    assert.equal(valueOf(text, 'iap_gateway_upstream_errors_total', { kind: 'unreachable' }), 1);
  } finally {
    await lonely.close();
  }
});

test('audit records the store cannot take yet are the backlog', async () => {
  const stuck = await startGateway(core.url);
  try {
    // The audit store is gone: records are kept for the next attempt, and wait.
    await stuck.store.close();
    const auth = { authorization: `Bearer ${core.adminToken}` };
    for (let i = 0; i < 4; i += 1) await (await fetch(`${stuck.url}/user-management/roles`, { headers: auth })).arrayBuffer();
    await stuck.gateway.audit.flush();
    assert.equal(valueOf(await stuck.gateway.metrics!.registry.metrics(), 'iap_audit_backlog'), 4);
  } finally {
    await stuck.close().catch(() => undefined);
  }
});

test('with metrics off, the gateway keeps no metrics and /metrics is the core\'s', async () => {
  const off = await startGateway(core.url, { METRICS_ENABLED: 'false' });
  try {
    assert.equal(off.gateway.metrics, null);
    const res = await fetch(`${off.url}/metrics`, { headers: { authorization: `Bearer ${core.adminToken}` } });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /service="core"/);
  } finally {
    await off.close();
  }
});
