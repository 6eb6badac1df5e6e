/**
 * Both services' metrics as Prometheus's own tools see them: `promtool check
 * metrics` accepts each exposition; the example alerting rules pass `promtool
 * check rules` and their unit tests; and a real Prometheus server, started
 * here on loopback with a one-second scrape interval and the scraper's
 * service account (OAuth 2 client credentials against the core's token
 * endpoint), scrapes both and answers queries with the values the services
 * hold. Skipped, saying why, when Debian's prometheus package is missing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { createWorkflow, job, manual, startJob, workflow } from '../helpers/engine.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { createScraper, valueOf } from '../helpers/metrics.ts';
import type { Scraper } from '../helpers/metrics.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';
import { eventually } from '../helpers/wait.ts';

const DOCS = fileURLToPath(new URL('../../docs/prometheus', import.meta.url));

function find(name: string): string | null {
  for (const dir of ['/usr/bin', ...(process.env['PATH'] ?? '').split(delimiter).filter(Boolean)]) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // Not here; try the next.
    }
  }
  return null;
}

const promtool = find('promtool');
const prometheus = find('prometheus');
const noPromtool = promtool ? false : "promtool is not installed; install Debian's prometheus package to run it";
const noServer = prometheus ? false : "prometheus is not installed; install Debian's prometheus package to run it";
if (noPromtool || noServer) console.log(`prometheus tests skipped: ${noPromtool || noServer}`);

let core: RunningCore;
let gw: RunningGateway;
let scraper: Scraper;

before(async () => {
  core = await startCore(SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }));
  gw = await startGateway(core.url);
  scraper = await createScraper(core);
  await createWorkflow(core, workflow('p-wait', { a1: manual() }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  for (let i = 0; i < 2; i += 1) await job(core, await startJob(core, 'p-wait'));
  const auth = { authorization: `Bearer ${core.adminToken}` };
  for (let i = 0; i < 3; i += 1) await (await fetch(`${gw.url}/workflow_engine/getJobDeep/0000000000000000000000a1`, { headers: auth })).arrayBuffer();
  await (await fetch(`${gw.url}/user-management/accounts`, { headers: auth })).arrayBuffer();
  await (await fetch(`${gw.url}/operations-manager/jobs?limit=1`, { headers: auth })).arrayBuffer();
});
after(async () => {
  await gw?.close();
  await core?.close();
});

async function exposition(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${scraper.token}` } });
  assert.equal(res.status, 200);
  return res.text();
}

test('promtool check metrics accepts both services\' expositions', { skip: noPromtool }, async () => {
  for (const [name, base] of [['core', core.url], ['gateway', gw.url]] as const) {
    const run = spawnSync(promtool!, ['check', 'metrics'], { input: await exposition(base), encoding: 'utf8' });
    assert.equal(run.status, 0, `${name}: ${run.stdout}${run.stderr}`);
    assert.equal(`${run.stdout}${run.stderr}`.trim(), '', `${name}: no lint problems`);
  }
});

test('the example alerting rules pass promtool check rules and their unit tests', { skip: noPromtool }, () => {
  const check = spawnSync(promtool!, ['check', 'rules', 'alerts.yml'], { cwd: DOCS, encoding: 'utf8' });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /SUCCESS: 4 rules found/);
  const unit = spawnSync(promtool!, ['test', 'rules', 'alerts.test.yml'], { cwd: DOCS, encoding: 'utf8' });
  assert.equal(unit.status, 0, unit.stdout + unit.stderr);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Vector {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(api: string, expr: string): Promise<Vector[]> {
  const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; data: { result: Vector[] } };
  assert.equal(body.status, 'success', JSON.stringify(body));
  return body.data.result;
}

/** The query's single value once Prometheus has it equal to `expected` (it scrapes every second), or what it last had. */
async function settle(api: string, expr: string, expected: number, ms = 30_000): Promise<number | null> {
  let last: number | null = null;
  await eventually(async () => {
    const result = await query(api, expr);
    last = result.length === 1 ? Number(result[0]!.value[1]) : null;
    return last === expected;
  }, { timeoutMs: ms, everyMs: 500 }).catch(() => undefined);
  return last;
}

test('a real Prometheus scrapes both services as the scraper account and answers with the values they hold', { skip: noServer, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-prometheus-'));
  let server: ChildProcess | null = null;
  let log = '';
  try {
    const port = await freePort();
    const target = (url: string) => new URL(url).host;
    // The scrape configuration the README shows, with this run's addresses and the scraper's client credentials.
    const config = [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      ...[['iap-core', core.url], ['iap-gateway', gw.url]].flatMap(([name, url]) => [
        `  - job_name: ${name}`,
        '    oauth2:',
        `      client_id: ${JSON.stringify(scraper.clientId)}`,
        `      client_secret: ${JSON.stringify(scraper.secret)}`,
        `      token_url: ${JSON.stringify(`${core.url}/oauth/token`)}`,
        '    static_configs:',
        `      - targets: [${JSON.stringify(target(url!))}]`,
      ]),
    ].join('\n');
    writeFileSync(join(dir, 'prometheus.yml'), `${config}\n`);
    server = spawn(prometheus!, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-8000)));
    server.stderr!.on('data', (c: Buffer) => (log = (log + c.toString()).slice(-8000)));
    const api = `http://127.0.0.1:${port}`;
    const ready = await eventually(() => fetch(`${api}/-/ready`).then((r) => r.ok, () => false), { timeoutMs: 30_000, everyMs: 250 }).catch(() => false);
    assert.ok(ready, `prometheus did not become ready: ${log}`);

    assert.equal(await settle(api, 'up{job="iap-core"}', 1), 1, `the core is scraped: ${log}`);
    assert.equal(await settle(api, 'up{job="iap-gateway"}', 1), 1, `the gateway is scraped: ${log}`);
    const coreText = await exposition(core.url);
    const running = valueOf(coreText, 'iap_jobs', { status: 'running' });
    assert.equal(running, 2);
    assert.equal(await settle(api, 'iap_jobs{job="iap-core",status="running"}', running!), running);
    const gatewayText = await exposition(gw.url);
    const refused = valueOf(gatewayText, 'iap_legacy_calls_total', { operation: 'getJobDeep', outcome: 'refused', removed_in: '2021.1' });
    assert.equal(refused, 3);
    assert.equal(await settle(api, 'iap_legacy_calls_total{job="iap-gateway",operation="getJobDeep",outcome="refused"}', refused!), refused);
    // A new call shows in Prometheus at the next scrapes.
    await (await fetch(`${gw.url}/workflow_engine/getJobDeep/0000000000000000000000a1`)).arrayBuffer();
    assert.equal(await settle(api, 'iap_legacy_calls_total{job="iap-gateway",operation="getJobDeep",outcome="refused"}', 4), 4);
    const routes = await query(api, 'count by (route) (http_request_duration_seconds_count{job="iap-core"})');
    assert.ok(routes.some((r) => r.metric['route'] === '/metrics'), 'the scrapes themselves are timed by route template');
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
