/**
 * What the metrics cost the gateway's two busy paths: the pass-through and a
 * rewritten legacy call, through a core and gateway with metrics on, against
 * a pair with `METRICS_ENABLED=false` on the same store, saturated.
 *
 * Two kinds of noise are as large as the cost on a shared 2-core host, and
 * the design answers each:
 * - the host speeds up and slows down over minutes: the variants run one
 *   after the other within a round (the first to run rotating), and the cost
 *   is the median over rounds of each round's own on/off ratio, so a slow
 *   minute moves one ratio, not the reading;
 * - a pair of processes can run several percent slower than an identical one
 *   for its whole life (where its processes settle, what V8 compiles): every
 *   round starts fresh pairs, so that bias is drawn anew per round instead of
 *   once for the whole comparison.
 * A third pair, with metrics on like the first, is read against it the same
 * way (A/A): two configurations that differ in nothing, so what it shows is
 * what the noise alone does to one such comparison.
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { cpuMicrosOf } from './child.ts';
import type { Goal } from './summary.ts';

const ROUNDS = 5;

/** One of the three pairs of a round: metrics on, off, and on again (the A/A partner of `on`). */
export type Variant = 'on' | 'off' | 'again';

/** A fresh core and gateway, started for one round and stopped after it. */
export interface Pair {
  readonly gatewayUrl: string;
  readonly pids: { readonly gateway: number; readonly core: number };
  stop(): Promise<void>;
}

export interface CostPath {
  readonly name: string;
  /** Appended to the gateway's URL. */
  readonly path: string;
}

interface Sample {
  readonly rps: number;
  /** Gateway plus core CPU µs per answered request. */
  readonly cpu: number;
}

interface Row {
  readonly name: string;
  readonly on: number;
  readonly off: number;
  readonly onCpu: number;
  readonly offCpu: number;
  /** Medians over rounds of each round's ratio (a cost: 1 - on/off; CPU: on/off - 1). */
  readonly cost: number;
  readonly cpuCost: number;
  readonly aaCost: number;
  readonly aaCpu: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function saturate(url: string, pair: Pair, token: string, seconds: number, connections: number): Promise<Sample> {
  const before = cpuMicrosOf(pair.pids.gateway) + cpuMicrosOf(pair.pids.core);
  const r = await autocannon({ url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` } });
  if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${url}: ${r.errors + r.timeouts + r.non2xx} failed requests`);
  const cpu = (cpuMicrosOf(pair.pids.gateway) + cpuMicrosOf(pair.pids.core) - before) / Math.max(1, r.requests.total);
  return { rps: r.requests.average, cpu };
}

/** `startPair(variant)` starts a fresh core and gateway, with metrics unless `variant` is `off`. */
export async function metricsCost(paths: readonly CostPath[], startPair: (variant: Variant) => Promise<Pair>, token: string, seconds: number, connections: number): Promise<{ markdown: string[]; goals: Goal[] }> {
  const loadBefore = loadavg()[0]!;
  const variants: readonly Variant[] = ['on', 'off', 'again'];
  // samples[path][variant][round]
  const samples = paths.map(() => ({ on: [] as Sample[], off: [] as Sample[], again: [] as Sample[] }));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let k = 0; k < variants.length; k += 1) {
      const which = variants[(round + k) % variants.length]!;
      const pair = await startPair(which);
      try {
        for (const p of paths) await saturate(`${pair.gatewayUrl}${p.path}`, pair, token, 2, connections);
        for (const [i, p] of paths.entries()) samples[i]![which].push(await saturate(`${pair.gatewayUrl}${p.path}`, pair, token, seconds, connections));
      } finally {
        await pair.stop();
      }
    }
  }
  const ratios = (a: Sample[], b: Sample[], of: (s: Sample) => number): number[] => a.map((x, r) => of(x) / of(b[r]!));
  const rows: Row[] = paths.map((p, i) => {
    const { on, off, again } = samples[i]!;
    const rps = (s: Sample): number => s.rps;
    const cpu = (s: Sample): number => s.cpu;
    const row: Row = {
      name: p.name,
      on: median(on.map(rps)),
      off: median(off.map(rps)),
      onCpu: median(on.map(cpu)),
      offCpu: median(off.map(cpu)),
      cost: 1 - median(ratios(on, off, rps)),
      cpuCost: median(ratios(on, off, cpu)) - 1,
      aaCost: 1 - median(ratios(again, on, rps)),
      aaCpu: median(ratios(again, on, cpu)) - 1,
    };
    const list = (s: Sample[]): string => s.map((x) => x.rps.toFixed(0)).join('/');
    console.log(`metrics cost, ${p.name}: ${(row.cost * 100).toFixed(1)}% (A/A ${(row.aaCost * 100).toFixed(1)}%), CPU ${(row.cpuCost * 100).toFixed(1)}% (A/A ${(row.aaCpu * 100).toFixed(1)}%); rounds on ${list(on)}, off ${list(off)}, on again ${list(again)} req/s`);
    return row;
  });
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const markdown = [
    `Metrics on and off (\`METRICS_ENABLED\`), saturated, ${connections} connections, ${seconds} s per path: ${ROUNDS} rounds, each of which starts three fresh pairs of core and gateway on the same store, one after the other (the first to run rotating): one with metrics, one without, and a second one with metrics; each pair is warmed 2 s per path, measured, and stopped. A pair of processes can run several percent slower than an identical one for its whole life, so fresh pairs each round draw that anew. The cost is the median over rounds of each round's on/off ratio, so a slow minute of the host moves one round's ratio, not the reading. CPU: what the gateway and the core together spent per answered request. The A/A columns read the second pair with metrics against the first the same way: two configurations that differ in nothing, so what they show is what noise alone does to one such comparison. Load average (1 min) at the start and end of these rounds: ${loadBefore.toFixed(1)} and ${loadavg()[0]!.toFixed(1)}.`,
    '',
    '| path | req/s on (median) | req/s off (median) | throughput cost | A/A | CPU µs/req on | CPU µs/req off | CPU cost | A/A |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.on.toFixed(0)} | ${r.off.toFixed(0)} | ${pct(r.cost)} | ${pct(r.aaCost)} | ${r.onCpu.toFixed(0)} | ${r.offCpu.toFixed(0)} | ${pct(r.cpuCost)} | ${pct(r.aaCpu)} |`),
  ];
  const goals: Goal[] = rows.flatMap((r) => [
    { section: 'gateway', figure: `${r.name} throughput with metrics (req/s)`, baseline: `metrics off ${r.off.toFixed(0)}`, measured: `${r.on.toFixed(0)} (${pct(r.cost)} cost; A/A ${pct(r.aaCost)})`, goal: 'under 5% cost', met: r.cost < 0.05 },
    { section: 'gateway', figure: `${r.name} CPU per request with metrics (µs)`, baseline: `metrics off ${r.offCpu.toFixed(0)}`, measured: `${r.onCpu.toFixed(0)} (${pct(r.cpuCost)} more; A/A ${pct(r.aaCpu)})`, goal: 'under 5% more', met: r.cpuCost < 0.05 },
  ]);
  return { markdown, goals };
}
