/**
 * What the metrics cost the gateway's two busy paths: the pass-through and a
 * rewritten legacy call, through a core and gateway with metrics on, against
 * a pair with `METRICS_ENABLED=false` on the same store, saturated.
 *
 * The cost is a percent or two, and three kinds of noise on a shared 2-core
 * host are each larger than that; the design answers each (docs/metrics.md):
 * - where the scheduler puts four busy processes and the load generator
 *   moved one pair's throughput 10-25% from one window to the next: each pair
 *   runs on one CPU of its own (`taskset`), the load generator on another,
 *   so a pair's throughput is what its one CPU does with its requests;
 * - the host speeds up and slows down within seconds: all three pairs of a
 *   round stay up, and each window runs them one after the other for two
 *   seconds (the first to run rotating), so neighbouring windows compare;
 * - a pair of processes can run several percent slower than an identical one
 *   for its whole life: every round starts fresh pairs, so that bias is drawn
 *   anew each round.
 * The cost is the median of every window's on/off ratio. A third pair, with
 * metrics on like the first, is read against it the same way (A/A): two
 * configurations that differ in nothing, so what it shows is what the noise
 * alone does to one such comparison.
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { cpuNanosOf, cpusOfSelf, pinTo } from './child.ts';
import type { GoalKey, Reading as GoalReading } from './goals.ts';

const ROUNDS = 4;
const WINDOWS = 5;
const WINDOW_SECONDS = 2;
const WARM_SECONDS = 3;

/** One of the three pairs of a round: metrics on, off, and on again (the A/A partner of `on`). */
export type Variant = 'on' | 'off' | 'again';
const VARIANTS: readonly Variant[] = ['on', 'off', 'again'];

/** A fresh core and gateway, started for one round and stopped after it. */
export interface Pair {
  readonly gatewayUrl: string;
  readonly pids: { readonly gateway: number; readonly core: number };
  stop(): Promise<void>;
}

/** Starts a pair with metrics unless `variant` is `off`; with `cpus`, both of its processes run only there. */
export type StartPair = (variant: Variant, cpus: string | null) => Promise<Pair>;

export interface CostPath {
  readonly name: string;
  /** Appended to the gateway's URL. */
  readonly path: string;
  /** The goals (goals.ts) its throughput and CPU costs are judged by. */
  readonly goals: { readonly throughput: GoalKey; readonly cpu: GoalKey };
}

interface Sample {
  readonly rps: number;
  /** Gateway plus core CPU µs per answered request. */
  readonly cpu: number;
}

/** Per-window ratios of one comparison, read as a cost: for throughput 1 - a/b, for CPU a/b - 1. */
interface Reading {
  readonly median: number;
  /** The middle half of the windows' readings. */
  readonly low: number;
  readonly high: number;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function reading(values: readonly number[]): Reading {
  return { median: quantile(values, 0.5), low: quantile(values, 0.25), high: quantile(values, 0.75) };
}

async function saturate(url: string, pair: Pair, token: string, seconds: number, connections: number): Promise<Sample> {
  const cpuOf = (): number => cpuNanosOf(pair.pids.gateway) + cpuNanosOf(pair.pids.core);
  const before = cpuOf();
  const r = await autocannon({ url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` } });
  if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${url}: ${r.errors + r.timeouts + r.non2xx} failed requests`);
  const answered = Math.max(1, r.requests.total);
  return { rps: answered / seconds, cpu: (cpuOf() - before) / 1000 / answered };
}

/**
 * Pairs on the last CPU, this process (autocannon) on the others, for the rounds; put back after. Null where the
 * host has one CPU or no `taskset`: the rounds then run unpinned, and the markdown says so.
 */
export function pinning(): { pairs: string; restore(): void } | null {
  const own = cpusOfSelf();
  const cpus = own?.split(',').flatMap((part) => {
    const [from, to] = part.split('-').map(Number);
    return to === undefined ? [from!] : Array.from({ length: to - from! + 1 }, (_, i) => from! + i);
  });
  if (!own || !cpus || cpus.length < 2) return null;
  const last = String(cpus.at(-1));
  pinTo(cpus.slice(0, -1).join(','));
  return { pairs: last, restore: () => pinTo(own) };
}

export async function metricsCost(paths: readonly CostPath[], startPair: StartPair, token: string, connections: number): Promise<{ markdown: string[]; readings: GoalReading[] }> {
  const loadBefore = loadavg()[0]!;
  const pin = pinning();
  // samples[path][variant][window], windows of every round in turn
  const samples = paths.map(() => ({ on: [] as Sample[], off: [] as Sample[], again: [] as Sample[] }));
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const pairs = new Map<Variant, Pair>();
      try {
        // Started in a rotating order too: the first to start has the page cache and the CPU to itself.
        for (let k = 0; k < VARIANTS.length; k += 1) {
          const variant = VARIANTS[(round + k) % VARIANTS.length]!;
          pairs.set(variant, await startPair(variant, pin?.pairs ?? null));
        }
        for (const pair of pairs.values()) for (const p of paths) await saturate(`${pair.gatewayUrl}${p.path}`, pair, token, WARM_SECONDS, connections);
        for (let window = 0; window < WINDOWS; window += 1) {
          for (const [i, p] of paths.entries()) {
            for (let k = 0; k < VARIANTS.length; k += 1) {
              const variant = VARIANTS[(round + window + k) % VARIANTS.length]!;
              const pair = pairs.get(variant)!;
              samples[i]![variant].push(await saturate(`${pair.gatewayUrl}${p.path}`, pair, token, WINDOW_SECONDS, connections));
            }
          }
        }
      } finally {
        await Promise.all([...pairs.values()].map((pair) => pair.stop()));
      }
    }
  } finally {
    pin?.restore();
  }
  const rows = paths.map((p, i) => {
    const { on, off, again } = samples[i]!;
    const ratio = (a: Sample[], b: Sample[], of: (s: Sample) => number): number[] => a.map((x, w) => of(x) / of(b[w]!));
    const rps = (s: Sample): number => s.rps;
    const cpu = (s: Sample): number => s.cpu;
    const row = {
      name: p.name,
      on: quantile(on.map(rps), 0.5),
      off: quantile(off.map(rps), 0.5),
      onCpu: quantile(on.map(cpu), 0.5),
      offCpu: quantile(off.map(cpu), 0.5),
      cost: reading(ratio(on, off, rps).map((r) => 1 - r)),
      aaCost: reading(ratio(again, on, rps).map((r) => 1 - r)),
      cpuCost: reading(ratio(on, off, cpu).map((r) => r - 1)),
      aaCpu: reading(ratio(again, on, cpu).map((r) => r - 1)),
    };
    console.log(`metrics cost, ${p.name}: ${pct(row.cost.median)} (middle half ${span(row.cost)}; A/A ${pct(row.aaCost.median)}), CPU ${pct(row.cpuCost.median)} (A/A ${pct(row.aaCpu.median)}); ${on.length} windows`);
    return row;
  });
  const where = pin
    ? `each pair's core and gateway on CPU ${pin.pairs} alone (\`taskset\`), autocannon on the others, so a pair's throughput is what one CPU does with its requests`
    : 'unpinned (no `taskset`, or one CPU): the scheduler\'s placement of the processes adds its noise';
  const markdown = [
    `Metrics on and off (\`METRICS_ENABLED\`), saturated, ${connections} connections: ${ROUNDS} rounds, each starting three fresh pairs of core and gateway on the same store (one with metrics, one without, and a second one with metrics), ${where}. Each pair is warmed ${WARM_SECONDS} s per path; then ${WINDOWS} windows per round, in each of which the three pairs answer ${WINDOW_SECONDS} s per path one after the other, the first to run rotating. The cost is the median over all ${ROUNDS * WINDOWS} windows of each window's on/off ratio, beside the middle half of those ratios; CPU is what the gateway and the core together spent per answered request (\`/proc/<pid>/task/*/schedstat\`). The A/A columns read the second pair with metrics against the first the same way: two configurations that differ in nothing, so what they show is what noise alone does to one such comparison (\`scripts/bench/metrics-cost.ts\`, docs/metrics.md). Load average (1 min) at the start and end of these rounds: ${loadBefore.toFixed(1)} and ${loadavg()[0]!.toFixed(1)}.`,
    '',
    '| path | req/s on (median) | req/s off (median) | throughput cost | middle half | A/A | CPU µs/req on | CPU µs/req off | CPU cost | middle half | A/A |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.on.toFixed(0)} | ${r.off.toFixed(0)} | ${pct(r.cost.median)} | ${span(r.cost)} | ${pct(r.aaCost.median)} | ${r.onCpu.toFixed(0)} | ${r.offCpu.toFixed(0)} | ${pct(r.cpuCost.median)} | ${span(r.cpuCost)} | ${pct(r.aaCpu.median)} |`),
  ];
  // Judged on the median of the windows' ratios (1 - cost for throughput, 1 + cost for CPU), not on the medians' ratio.
  const readings: GoalReading[] = rows.flatMap((r, i): GoalReading[] => {
    const goals = paths[i]!.goals;
    return [
      { key: goals.throughput, figure: r.on, baseline: r.off, judged: 1 - r.cost.median, shown: `${r.on.toFixed(0)} (${pct(r.cost.median)} cost; A/A ${pct(r.aaCost.median)})` },
      { key: goals.cpu, figure: r.onCpu, baseline: r.offCpu, judged: 1 + r.cpuCost.median, shown: `${r.onCpu.toFixed(0)} (${pct(r.cpuCost.median)} more; A/A ${pct(r.aaCpu.median)})` },
    ];
  });
  return { markdown, readings };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

function span(r: Reading): string {
  return `${pct(r.low)} to ${pct(r.high)}`;
}
