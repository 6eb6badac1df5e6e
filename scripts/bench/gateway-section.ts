/**
 * The gateway section of `npm run bench`: autocannon at a moderate, fixed load
 * against the core directly, a bare Node pass-through (the floor any proxy
 * pays), the gateway's pass-through, and a rewritten legacy call beside the
 * new call it becomes; and what the metrics cost those two paths
 * (metrics-cost.ts). All processes are real and run in one go.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { cpuMicrosOf, login, runToEnd, startService } from './child.ts';
import { metricsCost } from './metrics-cost.ts';
import type { StartPair } from './metrics-cost.ts';
import { paced } from './paced.ts';
import type { PacedResult } from './paced.ts';
import type { Panel } from './plot.ts';
import { goalLine, goalTable } from './goals.ts';
import type { Reading } from './goals.ts';
import { ms } from './stats.ts';

interface Load {
  readonly name: string;
  readonly url: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  /** CPU time per answered request of the proxy in the path (none for the core direct) and of the core, in µs. */
  readonly proxyCpu: number | null;
  readonly coreCpu: number;
}

/** A throughput gap as words: positive gaps are below the row compared with. */
function relative(gap: number): string {
  return gap >= 0 ? `${(gap * 100).toFixed(1)}% below` : `${(-gap * 100).toFixed(1)}% above`;
}

/** The processes whose CPU time a row charges to its requests. */
interface Pids {
  readonly proxy: number | null;
  readonly core: number;
}

/** Runs a load and charges the CPU the proxy and the core used meanwhile to the requests it answered, in µs each. */
async function charged<R>(pids: Pids, run: () => Promise<R>, answered: (r: R) => number): Promise<{ result: R; proxyCpu: number | null; coreCpu: number }> {
  const before = { proxy: pids.proxy === null ? 0 : cpuMicrosOf(pids.proxy), core: cpuMicrosOf(pids.core) };
  const result = await run();
  const n = Math.max(1, answered(result));
  const proxyCpu = pids.proxy === null ? null : (cpuMicrosOf(pids.proxy) - before.proxy) / n;
  return { result, proxyCpu, coreCpu: (cpuMicrosOf(pids.core) - before.core) / n };
}

async function load(name: string, url: string, token: string, seconds: number, connections: number, pids: Pids): Promise<Load> {
  const { result, proxyCpu, coreCpu } = await charged(pids, () => autocannon({ url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` } }), (r) => r.requests.total);
  const errors = result.errors + result.timeouts + result.non2xx;
  console.log(`${name}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${errors}, CPU µs/request proxy ${proxyCpu?.toFixed(0) ?? '-'} core ${coreCpu.toFixed(0)}`);
  return { name, url, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors, proxyCpu, coreCpu };
}

interface Moderate extends PacedResult {
  readonly name: string;
  readonly proxyCpu: number | null;
  readonly coreCpu: number;
}

/** One path at a fixed, moderate request rate: latency as a client sees it when nothing is saturated. */
async function moderate(name: string, url: string, token: string, rate: number, seconds: number, pids: Pids): Promise<Moderate> {
  const { result: r, proxyCpu, coreCpu } = await charged(pids, () => paced(url, { authorization: `Bearer ${token}` }, rate, seconds), (x) => x.n);
  console.log(`${name} at ${rate}/s: p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, errors ${r.errors}, late ${r.late}, CPU µs/request proxy ${proxyCpu?.toFixed(0) ?? '-'} core ${coreCpu.toFixed(0)}`);
  return { ...r, name, proxyCpu, coreCpu };
}

const MODERATE_ROUNDS = 5;
/**
 * Saturated rounds of half the section's seconds each: on a host whose speed moves by a tenth from one minute to
 * the next, rows measured close together in time see the same host, and their ratio is what it should be.
 */
const SATURATED_ROUNDS = 6;

/** The rows in the order of a round: forward, then backward, so no row always follows the same one. */
function inTurn<T>(rows: readonly T[], round: number): Array<[number, T]> {
  const order = [...rows.entries()];
  return round % 2 === 0 ? order : order.reverse();
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A path's saturated rounds as one row: medians of each figure, errors summed. */
function medianLoad(rounds: readonly Load[]): Load {
  const of = (pick: (l: Load) => number): number => median(rounds.map(pick));
  return {
    name: rounds[0]!.name,
    url: rounds[0]!.url,
    rps: of((r) => r.rps),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    proxyCpu: rounds[0]!.proxyCpu === null ? null : of((r) => r.proxyCpu ?? 0),
    coreCpu: of((r) => r.coreCpu),
  };
}

/** A path's rounds at the moderate rate as one row: medians of each figure, errors and late sends summed. */
function medianRound(rounds: readonly Moderate[]): Moderate {
  const of = (pick: (m: Moderate) => number): number => median(rounds.map(pick));
  return {
    name: rounds[0]!.name,
    n: rounds.reduce((n, r) => n + r.n, 0),
    p50: of((r) => r.p50),
    p99: of((r) => r.p99),
    max: of((r) => r.max),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    late: rounds.reduce((n, r) => n + r.late, 0),
    proxyCpu: rounds[0]!.proxyCpu === null ? null : of((r) => r.proxyCpu ?? 0),
    coreCpu: of((r) => r.coreCpu),
  };
}

export async function gatewaySection(seconds: number, connections: number): Promise<{ markdown: string; panels: Panel[]; readings: Reading[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iap-bench-gateway-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', MONGO_URL: '', ADMIN_USERNAME: 'bench-admin', ADMIN_PASSWORD: 'bench-admin-password', SEARCH_COUNT_CACHE_ENTRIES: '0' };
  await runToEnd(['scripts/seed.ts', '--jobs', '2000', '--data-dir', dataDir], { LOG_LEVEL: 'warn' });
  const core = await startService('core/src/main.ts', { ...env, CORE_PORT: '0' });
  const coreUrl = `http://127.0.0.1:${core.port}`;
  // Each gateway has a data directory of its own: two gateways in one would share their audit journal's files and
  // their gateway.sqlite, and each would replay, store and delete the other's records.
  const gatewayDirs: string[] = [];
  const gatewayEnv = (coreAt: string, extra: Record<string, string> = {}): Record<string, string> => {
    const dir = mkdtempSync(join(tmpdir(), 'iap-bench-gateway-data-'));
    gatewayDirs.push(dir);
    return { ...env, DATA_DIR: dir, PORT: '0', CORE_URL: coreAt, ...extra };
  };
  const gateway = await startService('gateway/src/main.ts', gatewayEnv(coreUrl));
  const bare = await startService('scripts/bench/bare-proxy.ts', { TARGET: coreUrl });
  // The same program once more: read against the first, it shows what noise alone does to one comparison (A/A).
  const bareTwin = await startService('scripts/bench/bare-proxy.ts', { TARGET: coreUrl });
  const bareRewrite = await startService('scripts/bench/bare-rewrite.ts', { TARGET: coreUrl, JOURNAL_DIR: gatewayEnv(coreUrl)['DATA_DIR']! });
  // For the cost of metrics, fresh pairs on the same store, started per round by metrics-cost.ts: the pair above has
  // answered every other row first (a larger audit table, a longer journal), which a comparison would charge to the metrics.
  const startPair: StartPair = async (variant, cpus) => {
    const metrics: Record<string, string> = variant === 'off' ? { METRICS_ENABLED: 'false' } : {};
    const pairCore = await startService('core/src/main.ts', { ...env, CORE_PORT: '0', ...metrics }, cpus);
    const pairGateway = await startService('gateway/src/main.ts', gatewayEnv(`http://127.0.0.1:${pairCore.port}`, metrics), cpus);
    return {
      gatewayUrl: `http://127.0.0.1:${pairGateway.port}`,
      pids: { gateway: pairGateway.child.pid!, core: pairCore.child.pid! },
      stop: async () => {
        const exited = [pairGateway, pairCore].map((p) => new Promise((resolve) => (p.child.exitCode !== null ? resolve(null) : p.child.once('exit', resolve))));
        for (const p of [pairGateway, pairCore]) p.child.kill('SIGTERM');
        await Promise.all(exited);
      },
    };
  };
  try {
    const token = await login(coreUrl, 'bench-admin', 'bench-admin-password');
    const page = (await (await fetch(`${coreUrl}/operations-manager/jobs?limit=1&include=_id`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: Array<{ _id: string }> };
    const id = page.data[0]!._id;
    const path = `/operations-manager/jobs/${id}`;
    const gatewayUrl = `http://127.0.0.1:${gateway.port}`;
    const runs: Load[] = [];
    // Warm every path once, then measure each in turn.
    const corePid = core.child.pid!;
    const viaCore: Pids = { proxy: null, core: corePid };
    const viaBare: Pids = { proxy: bare.child.pid!, core: corePid };
    const viaGateway: Pids = { proxy: gateway.child.pid!, core: corePid };
    const rows: ReadonlyArray<readonly [string, string, Pids]> = [
      ['core direct', `${coreUrl}${path}`, viaCore],
      ['bare Node pass-through', `http://127.0.0.1:${bare.port}${path}`, viaBare],
      ['gateway pass-through', `${gatewayUrl}${path}`, viaGateway],
      ['legacy getJob, rewritten by the gateway', `${gatewayUrl}/workflow_engine/getJob/${id}`, viaGateway],
      ['legacy getJob, bare Node rewrite', `http://127.0.0.1:${bareRewrite.port}/workflow_engine/getJob/${id}`, { proxy: bareRewrite.child.pid!, core: corePid }],
      ['bare Node pass-through, a second process (A/A)', `http://127.0.0.1:${bareTwin.port}${path}`, { proxy: bareTwin.child.pid!, core: corePid }],
    ];
    for (const [, url, pids] of rows) await load('warm-up', url, token, 2, connections, pids);
    // Saturated rounds interleaved too, each row the median of its rounds: one row run once moved the CPU ratios by
    // 0.2 between runs of the same tree.
    const saturated: Load[][] = rows.map(() => []);
    const roundSeconds = Math.max(2, Math.round(seconds / 2));
    for (let round = 0; round < SATURATED_ROUNDS; round += 1) {
      for (const [i, [name, url, pids]] of inTurn(rows, round)) saturated[i]!.push(await load(name, url, token, roundSeconds, connections, pids));
    }
    runs.push(...saturated.map(medianLoad));
    const [direct, bareProxy, passThrough, legacy, bareLegacy, twin] = runs as [Load, Load, Load, Load, Load, Load];
    // Moderate: a quarter of what the slowest path sustains, offered to every path alike.
    const rate = Math.max(100, Math.floor(Math.min(...runs.map((r) => r.rps)) / 4 / 50) * 50);
    // Rounds interleaved, each path's figures the median of its rounds: one stall of a noisy host moves one round, not the reading.
    const rounds: Moderate[][] = rows.map(() => []);
    for (let round = 0; round < MODERATE_ROUNDS; round += 1) {
      for (const [i, [name, url, pids]] of inTurn(rows, round)) rounds[i]!.push(await moderate(name, url, token, rate, seconds, pids));
    }
    const calm = rounds.map(medianRound);
    const cost = await metricsCost(
      [
        { name: 'gateway pass-through', path, goals: { throughput: 'gateway.metrics-pass-through-throughput', cpu: 'gateway.metrics-pass-through-cpu' } },
        { name: 'legacy getJob, rewritten', path: `/workflow_engine/getJob/${id}`, goals: { throughput: 'gateway.metrics-rewrite-throughput', cpu: 'gateway.metrics-rewrite-cpu' } },
      ],
      startPair,
      token,
      connections,
    );
    const [, calmBare, calmPass, calmLegacy, calmBareLegacy, calmTwin] = calm as [Moderate, Moderate, Moderate, Moderate, Moderate, Moderate];
    const date = new Date().toISOString().slice(0, 10);
    const throughputGap = 1 - passThrough.rps / bareProxy.rps;
    const legacyGap = 1 - legacy.rps / passThrough.rps;
    const cpu = (x: number | null): number => x ?? Number.NaN;
    const us = (x: number | null): string => (x === null ? '–' : x.toFixed(0));
    // The second bare proxy over the first: a ratio between two identical programs, so whatever it is off 1 is noise.
    const aa = (x: number | null, y: number | null): string => `A/A ${(cpu(x) / cpu(y)).toFixed(2)}×`;
    const readings: Reading[] = [
      { key: 'gateway.pass-through-throughput', figure: passThrough.rps, baseline: bareProxy.rps, shown: `${passThrough.rps.toFixed(0)} (${relative(throughputGap)}; A/A ${(twin.rps / bareProxy.rps).toFixed(2)}×)` },
      { key: 'gateway.pass-through-cpu-saturated', figure: cpu(passThrough.proxyCpu), baseline: cpu(bareProxy.proxyCpu), shown: `${us(passThrough.proxyCpu)} (${aa(twin.proxyCpu, bareProxy.proxyCpu)})` },
      { key: 'gateway.pass-through-cpu-moderate', subject: `${rate} req/s`, figure: cpu(calmPass.proxyCpu), baseline: cpu(calmBare.proxyCpu), shown: `${us(calmPass.proxyCpu)} (${aa(calmTwin.proxyCpu, calmBare.proxyCpu)})` },
      { key: 'gateway.pass-through-p99-added', subject: `${rate} req/s`, figure: calmPass.p99, baseline: calmBare.p99 },
      { key: 'gateway.rewrite-throughput', figure: legacy.rps, baseline: passThrough.rps, shown: `${legacy.rps.toFixed(0)} (${relative(legacyGap)}; bare Node rewrite ${bareLegacy.rps.toFixed(0)})` },
      { key: 'gateway.rewrite-cpu-saturated', figure: cpu(legacy.proxyCpu), baseline: cpu(bareLegacy.proxyCpu) },
      { key: 'gateway.rewrite-cpu-moderate', subject: `${rate} req/s`, figure: cpu(calmLegacy.proxyCpu), baseline: cpu(calmBareLegacy.proxyCpu) },
      // The audit's batches and WAL checkpoints once held the event loop behind legacy calls (docs/audit.md).
      { key: 'gateway.rewrite-p99-added', subject: `${rate} req/s`, figure: calmLegacy.p99, baseline: calmPass.p99 },
      { key: 'gateway.rewrite-p50-ratio', subject: `${rate} req/s`, figure: calmLegacy.p50, baseline: calmPass.p50 },
    ];
    const markdown = [
      '<!-- bench:gateway:start -->',
      '## Gateway: pass-through and rewritten legacy calls',
      '',
      `Command: \`npm run bench\` (gateway part: \`npm run bench -- --only gateway\`) · date ${date} · ${cpus().length} cores · Node ${process.version}`,
      '',
      `autocannon, ${connections} connections, ${roundSeconds} s per row after a 2 s warm-up, ${SATURATED_ROUNDS} rounds with the rows interleaved (forward in one round, backward in the next), each figure the median of a row's rounds, all processes real and on this machine: \`GET /operations-manager/jobs/:id\` (one job, about 3 KB) with a bearer token, on a store of 2,000 seeded jobs. The legacy row is \`GET /workflow_engine/getJob/:id\`, which the gateway rewrites into that same call and unwraps. The last row is the bare proxy again, a second process of the same program: its ratio to the first (A/A, beside the pass-through's goals below) is what the host's noise alone does to one such comparison.`,
      '',
      'CPU columns: CPU time (user and system, from `/proc`) the proxy in the path and the core used during the row, divided by the requests answered. With every process and autocannon on the same cores, throughput follows the CPU a request costs in total.',
      '',
      '| path | req/s | p50 ms | p99 ms | errors | proxy CPU µs/req | core CPU µs/req |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...runs.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} | ${r.proxyCpu === null ? '–' : r.proxyCpu.toFixed(0)} | ${r.coreCpu.toFixed(0)} |`),
      '',
      `At moderate load: every path in turn at the same fixed rate, ${rate} requests/s for ${seconds} s (a quarter of what the slowest path sustains above), ${MODERATE_ROUNDS} rounds with the paths interleaved (forward, then backward), each figure the median of a path's rounds; requests sent on schedule whether or not earlier answers came back (open loop, so a slow path shows as latency), each timed from its scheduled send with sub-millisecond resolution (\`scripts/bench/paced.ts\`).`,
      '',
      '| path | p50 ms | p99 ms | errors | proxy CPU µs/req | core CPU µs/req |',
      '|---|---:|---:|---:|---:|---:|',
      ...calm.map((r) => `| ${r.name} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} | ${r.proxyCpu === null ? '–' : r.proxyCpu.toFixed(0)} | ${r.coreCpu.toFixed(0)} |`),
      '',
      ...goalTable(readings),
      '',
      `The floor of a rewrite: a bare Node server doing only this rewrite with the same bytes each way (one keep-alive call to the core, parse, unwrap, one journal line per call written once per turn before the answers, as the gateway's audit journal does; \`scripts/bench/bare-rewrite.ts\`) runs ${relative(1 - bareLegacy.rps / passThrough.rps)} the gateway's pass-through of the new call, at ${us(bareLegacy.proxyCpu)} µs of CPU per request against the gateway's ${us(legacy.proxyCpu)} µs; the gateway's rewrite runs ${relative(1 - legacy.rps / bareLegacy.rps)} that floor.`,
      '',
      `For scale: the core direct answers ${direct.rps.toFixed(0)} req/s; every proxy shares the two cores with it and with autocannon.`,
      '',
      ...cost.markdown,
      '<!-- bench:gateway:end -->',
    ].join('\n');
    const short = ['core direct', 'bare Node proxy', 'gateway pass-through', 'legacy getJob (rewritten)', 'bare Node rewrite', 'bare Node proxy (A/A)'];
    const panels: Panel[] = [
      { section: 'gateway', title: `Gateway: throughput, ${connections} connections`, unit: 'req/s', better: 'higher', series: ['req/s'], groups: runs.map((r, i) => ({ label: short[i]!, values: [r.rps] })), goal: goalLine('gateway.rewrite-throughput', passThrough.rps) },
      { section: 'gateway', title: 'Gateway: CPU per request, saturated', unit: 'µs', better: 'lower', series: ['proxy', 'core'], groups: runs.map((r, i) => ({ label: short[i]!, values: [r.proxyCpu, r.coreCpu] })), goal: goalLine('gateway.pass-through-cpu-saturated', bareProxy.proxyCpu) },
    ];
    return { markdown, panels, readings: [...readings, ...cost.readings] };
  } finally {
    for (const p of [bare, bareTwin, bareRewrite, gateway, core]) p.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    for (const dir of [dataDir, ...gatewayDirs]) rmSync(dir, { recursive: true, force: true });
  }
}
