/**
 * The gateway section of `npm run bench`: autocannon at a moderate, fixed load
 * against the core directly, a bare Node pass-through (the floor any proxy
 * pays), the gateway's pass-through, and a rewritten legacy call beside the
 * new call it becomes. All processes are real and run in one go.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { login, runToEnd, startService } from './child.ts';
import { ms } from './stats.ts';

interface Load {
  readonly name: string;
  readonly url: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

async function load(name: string, url: string, token: string, seconds: number, connections: number): Promise<Load> {
  const result = await autocannon({ url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` } });
  const errors = result.errors + result.timeouts + result.non2xx;
  console.log(`${name}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${errors}`);
  return { name, url, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors };
}

export async function gatewaySection(seconds: number, connections: number): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iap-bench-gateway-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', MONGO_URL: '', ADMIN_USERNAME: 'bench-admin', ADMIN_PASSWORD: 'bench-admin-password', SEARCH_COUNT_CACHE_ENTRIES: '0' };
  await runToEnd(['scripts/seed.ts', '--jobs', '2000', '--data-dir', dataDir], { LOG_LEVEL: 'warn' });
  const core = await startService('core/src/main.ts', { ...env, CORE_PORT: '0' });
  const coreUrl = `http://127.0.0.1:${core.port}`;
  const gateway = await startService('gateway/src/main.ts', { ...env, PORT: '0', CORE_URL: coreUrl });
  const bare = await startService('scripts/bench/bare-proxy.ts', { TARGET: coreUrl });
  try {
    const token = await login(coreUrl, 'bench-admin', 'bench-admin-password');
    const page = (await (await fetch(`${coreUrl}/operations-manager/jobs?limit=1&include=_id`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: Array<{ _id: string }> };
    const id = page.data[0]!._id;
    const path = `/operations-manager/jobs/${id}`;
    const gatewayUrl = `http://127.0.0.1:${gateway.port}`;
    const runs: Load[] = [];
    // Warm every path once, then measure each in turn.
    for (const url of [`${coreUrl}${path}`, `http://127.0.0.1:${bare.port}${path}`, `${gatewayUrl}${path}`, `${gatewayUrl}/workflow_engine/getJob/${id}`]) await load('warm-up', url, token, 2, connections);
    runs.push(await load('core direct', `${coreUrl}${path}`, token, seconds, connections));
    runs.push(await load('bare Node pass-through', `http://127.0.0.1:${bare.port}${path}`, token, seconds, connections));
    runs.push(await load('gateway pass-through', `${gatewayUrl}${path}`, token, seconds, connections));
    runs.push(await load('legacy getJob, rewritten by the gateway', `${gatewayUrl}/workflow_engine/getJob/${id}`, token, seconds, connections));
    const [direct, bareProxy, passThrough, legacy] = runs as [Load, Load, Load, Load];
    const date = new Date().toISOString().slice(0, 10);
    const throughputGap = 1 - passThrough.rps / bareProxy.rps;
    const addedP99 = passThrough.p99 - bareProxy.p99;
    const legacyGap = 1 - legacy.rps / passThrough.rps;
    return [
      '<!-- bench:gateway:start -->',
      '## Gateway: pass-through and rewritten legacy calls',
      '',
      `Command: \`npm run bench\` (gateway part: \`npm run bench -- --only gateway\`) · date ${date} · ${cpus().length} cores · Node ${process.version}`,
      '',
      `autocannon, ${connections} connections, ${seconds} s per row after a 2 s warm-up, all processes real and on this machine: \`GET /operations-manager/jobs/:id\` (one job, about 3 KB) with a bearer token, on a store of 2,000 seeded jobs. The legacy row is \`GET /workflow_engine/getJob/:id\`, which the gateway rewrites into that same call and unwraps.`,
      '',
      '| path | req/s | p50 ms | p99 ms | errors |',
      '|---|---:|---:|---:|---:|',
      ...runs.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} |`),
      '',
      '| goal | measured | |',
      '|---|---|---|',
      `| gateway pass-through throughput within 10% of the bare proxy | ${(throughputGap * 100).toFixed(1)}% below | ${throughputGap <= 0.1 ? 'met' : 'missed'} |`,
      `| p99 added over the bare proxy under 2 ms | ${addedP99.toFixed(1)} ms | ${addedP99 < 2 ? 'met' : 'missed'} |`,
      `| rewritten legacy call within 25% of the new call it becomes | ${(legacyGap * 100).toFixed(1)}% below | ${legacyGap <= 0.25 ? 'met' : 'missed'} |`,
      '',
      `For scale: the core direct answers ${direct.rps.toFixed(0)} req/s; every proxy shares the two cores with it and with autocannon.`,
      '<!-- bench:gateway:end -->',
    ].join('\n');
  } finally {
    for (const p of [bare, gateway, core]) p.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
