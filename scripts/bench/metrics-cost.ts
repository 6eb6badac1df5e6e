/**
 * What the metrics cost the gateway's two busy paths: the pass-through and a
 * rewritten legacy call, each through a fresh core and gateway with metrics on
 * and through a second fresh pair with `METRICS_ENABLED=false` on the same store.
 * Saturated throughput, in rounds with on and off interleaved, each figure
 * the median of its rounds: a stall of a shared host moves one round, not
 * the comparison. Beside throughput, the CPU time the gateway and the core
 * spent per answered request: on a shared machine throughput swings with
 * what else runs, CPU per request much less.
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { cpuMicrosOf } from './child.ts';
import type { Goal } from './summary.ts';
import { ms } from './stats.ts';

const ROUNDS = 5;

/** The processes a path runs through: their CPU time is charged to its requests. */
export interface CostPids {
  readonly gateway: number;
  readonly core: number;
}

export interface CostPath {
  readonly name: string;
  readonly on: string;
  readonly off: string;
  readonly onPids: CostPids;
  readonly offPids: CostPids;
}

interface Sample {
  readonly rps: number;
  readonly p99: number;
  /** Gateway plus core CPU µs per answered request. */
  readonly cpu: number;
}

interface Row {
  readonly name: string;
  readonly on: number;
  readonly off: number;
  readonly onP99: number;
  readonly offP99: number;
  readonly onCpu: number;
  readonly offCpu: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function saturate(url: string, pids: CostPids, token: string, seconds: number, connections: number): Promise<Sample> {
  const before = cpuMicrosOf(pids.gateway) + cpuMicrosOf(pids.core);
  const r = await autocannon({ url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` } });
  if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${url}: ${r.errors + r.timeouts + r.non2xx} failed requests`);
  const cpu = (cpuMicrosOf(pids.gateway) + cpuMicrosOf(pids.core) - before) / Math.max(1, r.requests.total);
  return { rps: r.requests.average, p99: r.latency.p99, cpu };
}

export async function metricsCost(paths: readonly CostPath[], token: string, seconds: number, connections: number): Promise<{ markdown: string[]; goals: Goal[] }> {
  const rows: Row[] = [];
  const loadBefore = loadavg()[0]!;
  for (const path of paths) {
    const on: Sample[] = [];
    const off: Sample[] = [];
    // The pairs are fresh: both warmed alike before anything is counted.
    for (const which of ['on', 'off'] as const) await saturate(path[which], which === 'on' ? path.onPids : path.offPids, token, 2, connections);
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate which goes first, so neither always runs on a warmer or busier machine.
      const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const which of order) (which === 'on' ? on : off).push(await saturate(path[which], which === 'on' ? path.onPids : path.offPids, token, seconds, connections));
    }
    const row = { name: path.name, on: median(on.map((x) => x.rps)), off: median(off.map((x) => x.rps)), onP99: median(on.map((x) => x.p99)), offP99: median(off.map((x) => x.p99)), onCpu: median(on.map((x) => x.cpu)), offCpu: median(off.map((x) => x.cpu)) };
    console.log(`metrics cost, ${row.name}: on ${row.on.toFixed(0)} req/s ${row.onCpu.toFixed(0)} µs, off ${row.off.toFixed(0)} req/s ${row.offCpu.toFixed(0)} µs (rounds ${on.map((x) => x.rps.toFixed(0)).join('/')} vs ${off.map((x) => x.rps.toFixed(0)).join('/')})`);
    rows.push(row);
  }
  const cost = (r: Row): number => 1 - r.on / r.off;
  const cpuCost = (r: Row): number => r.onCpu / r.offCpu - 1;
  const markdown = [
    `Metrics on and off (\`METRICS_ENABLED\`): the same paths through two fresh pairs of core and gateway started together on the same store (each gateway with its own data directory), one with metrics and one without, each path warmed 2 s on both; saturated, ${connections} connections, ${seconds} s, ${ROUNDS} rounds with on and off interleaved, medians. CPU: what the gateway and the core together spent per answered request, which a busy shared machine moves much less than throughput. Load average (1 min) at the start and end of these rounds: ${loadBefore.toFixed(1)} and ${loadavg()[0]!.toFixed(1)}.`,
    '',
    '| path | req/s on | req/s off | throughput cost | CPU µs/req on | CPU µs/req off | CPU cost | p99 ms on / off |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.on.toFixed(0)} | ${r.off.toFixed(0)} | ${(cost(r) * 100).toFixed(1)}% | ${r.onCpu.toFixed(0)} | ${r.offCpu.toFixed(0)} | ${(cpuCost(r) * 100).toFixed(1)}% | ${ms(r.onP99)} / ${ms(r.offP99)} |`),
  ];
  const goals: Goal[] = rows.flatMap((r) => [
    { section: 'gateway', figure: `${r.name} throughput with metrics (req/s)`, baseline: `metrics off ${r.off.toFixed(0)}`, measured: `${r.on.toFixed(0)} (${(cost(r) * 100).toFixed(1)}% cost)`, goal: 'under 5% cost', met: cost(r) < 0.05 },
    { section: 'gateway', figure: `${r.name} CPU per request with metrics (µs)`, baseline: `metrics off ${r.offCpu.toFixed(0)}`, measured: `${r.onCpu.toFixed(0)} (${(cpuCost(r) * 100).toFixed(1)}% more)`, goal: 'under 5% more', met: cpuCost(r) < 0.05 },
  ]);
  return { markdown, goals };
}
