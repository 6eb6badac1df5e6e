/**
 * What the metrics cost the gateway's two busy paths: the pass-through and a
 * rewritten legacy call, each through a fresh core and gateway with metrics on
 * and through a second fresh pair with `METRICS_ENABLED=false` on the same store.
 * Saturated throughput, in rounds with on and off interleaved, each figure
 * the median of its rounds: a stall of a shared host moves one round, not
 * the comparison. Beside throughput, the CPU time the gateway and the core
 * spent per answered request: on a shared machine throughput swings with
 * what else runs, CPU per request much less. A third fresh pair, with metrics
 * on like the first, is measured in the same rounds against it: two equal
 * pairs read apart by what the host's noise alone does to one comparison
 * (A/A), the yardstick for the cost beside it.
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

/** One of the three pairs a path runs through: metrics on, off, and on again (the A/A partner of `on`). */
type Variant = 'on' | 'off' | 'again';

export interface CostPath {
  readonly name: string;
  readonly urls: Readonly<Record<Variant, string>>;
  readonly pids: Readonly<Record<Variant, CostPids>>;
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
  readonly again: number;
  readonly onP99: number;
  readonly offP99: number;
  readonly onCpu: number;
  readonly offCpu: number;
  readonly againCpu: number;
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
  const variants: readonly Variant[] = ['on', 'off', 'again'];
  for (const path of paths) {
    const samples: Record<Variant, Sample[]> = { on: [], off: [], again: [] };
    // The pairs are fresh: all warmed alike before anything is counted.
    for (const which of variants) await saturate(path.urls[which], path.pids[which], token, 2, connections);
    for (let round = 0; round < ROUNDS; round += 1) {
      // Rotate which goes first, so none always runs on a warmer or busier machine.
      for (let k = 0; k < variants.length; k += 1) {
        const which = variants[(round + k) % variants.length]!;
        samples[which].push(await saturate(path.urls[which], path.pids[which], token, seconds, connections));
      }
    }
    const { on, off, again } = samples;
    const row = { name: path.name, on: median(on.map((x) => x.rps)), off: median(off.map((x) => x.rps)), again: median(again.map((x) => x.rps)), onP99: median(on.map((x) => x.p99)), offP99: median(off.map((x) => x.p99)), onCpu: median(on.map((x) => x.cpu)), offCpu: median(off.map((x) => x.cpu)), againCpu: median(again.map((x) => x.cpu)) };
    const rounds = (list: Sample[]): string => list.map((x) => x.rps.toFixed(0)).join('/');
    console.log(`metrics cost, ${row.name}: on ${row.on.toFixed(0)} req/s ${row.onCpu.toFixed(0)} µs, off ${row.off.toFixed(0)} req/s ${row.offCpu.toFixed(0)} µs, on again ${row.again.toFixed(0)} req/s ${row.againCpu.toFixed(0)} µs (rounds ${rounds(on)} vs ${rounds(off)} vs ${rounds(again)})`);
    rows.push(row);
  }
  const cost = (r: Row): number => 1 - r.on / r.off;
  const cpuCost = (r: Row): number => r.onCpu / r.offCpu - 1;
  // The same readings between two pairs that differ in nothing: what noise alone makes of one comparison.
  const aaCost = (r: Row): number => 1 - r.again / r.on;
  const aaCpu = (r: Row): number => r.againCpu / r.onCpu - 1;
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const markdown = [
    `Metrics on and off (\`METRICS_ENABLED\`): the same paths through three fresh pairs of core and gateway started together on the same store (each gateway with its own data directory): one with metrics, one without, and a second one with metrics, each path warmed 2 s on all three; saturated, ${connections} connections, ${seconds} s, ${ROUNDS} rounds with the three interleaved (the first to run rotating), medians. CPU: what the gateway and the core together spent per answered request, which a busy shared machine moves much less than throughput. The A/A columns read the second pair with metrics against the first, the same way the cost reads metrics on against off: two pairs that differ in nothing, so what they show is what the host's noise alone does to one such comparison. Load average (1 min) at the start and end of these rounds: ${loadBefore.toFixed(1)} and ${loadavg()[0]!.toFixed(1)}.`,
    '',
    '| path | req/s on | req/s off | throughput cost | A/A | CPU µs/req on | CPU µs/req off | CPU cost | A/A | p99 ms on / off |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.on.toFixed(0)} | ${r.off.toFixed(0)} | ${pct(cost(r))} | ${pct(aaCost(r))} | ${r.onCpu.toFixed(0)} | ${r.offCpu.toFixed(0)} | ${pct(cpuCost(r))} | ${pct(aaCpu(r))} | ${ms(r.onP99)} / ${ms(r.offP99)} |`),
  ];
  const goals: Goal[] = rows.flatMap((r) => [
    { section: 'gateway', figure: `${r.name} throughput with metrics (req/s)`, baseline: `metrics off ${r.off.toFixed(0)}`, measured: `${r.on.toFixed(0)} (${pct(cost(r))} cost; A/A ${pct(aaCost(r))})`, goal: 'under 5% cost', met: cost(r) < 0.05 },
    { section: 'gateway', figure: `${r.name} CPU per request with metrics (µs)`, baseline: `metrics off ${r.offCpu.toFixed(0)}`, measured: `${r.onCpu.toFixed(0)} (${pct(cpuCost(r))} more; A/A ${pct(aaCpu(r))})`, goal: 'under 5% more', met: cpuCost(r) < 0.05 },
  ]);
  return { markdown, goals };
}
