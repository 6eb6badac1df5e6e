/**
 * What the metrics cost the gateway's two busy paths: the pass-through and a
 * rewritten legacy call, each through a core and gateway with metrics on and
 * through a second pair with `METRICS_ENABLED=false` on the same store.
 * Saturated throughput, in rounds with on and off interleaved, each figure
 * the median of its rounds: a stall of a shared host moves one round, not
 * the comparison.
 */
import autocannon from 'autocannon';
import type { Goal } from './summary.ts';
import { ms } from './stats.ts';

const ROUNDS = 3;

export interface CostPath {
  readonly name: string;
  readonly on: string;
  readonly off: string;
}

interface Row {
  readonly name: string;
  readonly on: number;
  readonly off: number;
  readonly onP99: number;
  readonly offP99: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function saturate(url: string, token: string, seconds: number, connections: number): Promise<{ rps: number; p99: number }> {
  const r = await autocannon({ url, connections, duration: seconds, headers: { authorization: `Bearer ${token}` } });
  if (r.errors + r.timeouts + r.non2xx > 0) throw new Error(`${url}: ${r.errors + r.timeouts + r.non2xx} failed requests`);
  return { rps: r.requests.average, p99: r.latency.p99 };
}

export async function metricsCost(paths: readonly CostPath[], token: string, seconds: number, connections: number): Promise<{ markdown: string[]; goals: Goal[] }> {
  const rows: Row[] = [];
  for (const path of paths) {
    const on: Array<{ rps: number; p99: number }> = [];
    const off: Array<{ rps: number; p99: number }> = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate which goes first, so neither always runs on a warmer or busier machine.
      const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const which of order) (which === 'on' ? on : off).push(await saturate(path[which], token, seconds, connections));
    }
    const row = { name: path.name, on: median(on.map((x) => x.rps)), off: median(off.map((x) => x.rps)), onP99: median(on.map((x) => x.p99)), offP99: median(off.map((x) => x.p99)) };
    console.log(`metrics cost, ${row.name}: on ${row.on.toFixed(0)} req/s, off ${row.off.toFixed(0)} req/s (${on.map((x) => x.rps.toFixed(0)).join('/')} vs ${off.map((x) => x.rps.toFixed(0)).join('/')})`);
    rows.push(row);
  }
  const cost = (r: Row): number => 1 - r.on / r.off;
  const markdown = [
    `Metrics on and off (\`METRICS_ENABLED\`): the same paths through a core and gateway with metrics and through a second pair without, on the same store; saturated, ${connections} connections, ${seconds} s, ${ROUNDS} rounds with on and off interleaved, medians.`,
    '',
    '| path | metrics on req/s | metrics off req/s | cost | p99 ms on / off | goal: under 5% |',
    '|---|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r.name} | ${r.on.toFixed(0)} | ${r.off.toFixed(0)} | ${(cost(r) * 100).toFixed(1)}% | ${ms(r.onP99)} / ${ms(r.offP99)} | ${cost(r) < 0.05 ? 'met' : 'missed'} |`),
  ];
  const goals: Goal[] = rows.map((r) => ({ section: 'gateway', figure: `${r.name} throughput with metrics (req/s)`, baseline: `metrics off ${r.off.toFixed(0)}`, measured: `${r.on.toFixed(0)} (${(cost(r) * 100).toFixed(1)}% cost)`, goal: 'under 5% cost', met: cost(r) < 0.05 }));
  return { markdown, goals };
}
