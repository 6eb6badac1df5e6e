/**
 * A hot path beside its floor: the loads the relay and core sections run on
 * each target, saturated (autocannon) and at a fixed moderate rate (paced),
 * each charging the CPU the serving processes used meanwhile to the requests
 * answered (`/proc/<pid>/task/<tid>/schedstat`, nanosecond resolution).
 */
import autocannon from 'autocannon';
import { cpuNanosOf } from './child.ts';
import { paced } from './paced.ts';
import { ms } from './stats.ts';

export interface Target {
  readonly name: string;
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** The processes that serve it, in the order of the `cpu` figures: the one under test first. */
  readonly pids: readonly number[];
}

export interface LoadResult {
  readonly name: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  /** CPU µs per answered request of each of the target's processes. */
  readonly cpu: readonly number[];
}

async function charged<R>(pids: readonly number[], run: () => Promise<R>, answered: (r: R) => number): Promise<{ result: R; cpu: number[] }> {
  const before = pids.map(cpuNanosOf);
  const result = await run();
  const n = Math.max(1, answered(result));
  return { result, cpu: pids.map((pid, i) => (cpuNanosOf(pid) - before[i]!) / 1000 / n) };
}

export async function saturated(t: Target, seconds: number, connections: number): Promise<LoadResult> {
  const { result, cpu } = await charged(t.pids, () => autocannon({ url: t.url, connections, duration: seconds, method: t.method, headers: t.headers, ...(t.body === undefined ? {} : { body: t.body }) }), (r) => r.requests.total);
  const errors = result.errors + result.timeouts + result.non2xx;
  const r: LoadResult = { name: t.name, rps: result.requests.total / seconds, p50: result.latency.p50, p99: result.latency.p99, errors, cpu };
  console.log(`${t.name}, saturated: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${errors}, CPU µs/request ${cpu.map((c) => c.toFixed(0)).join(' + ')}`);
  return r;
}

export async function moderate(t: Target, rate: number, seconds: number): Promise<LoadResult> {
  const { result, cpu } = await charged(t.pids, () => paced(t.url, t.headers, rate, seconds, t.body === undefined ? null : { method: t.method, body: t.body }), (x) => x.n);
  const r: LoadResult = { name: t.name, rps: result.n / seconds, p50: result.p50, p99: result.p99, errors: result.errors, cpu };
  console.log(`${t.name} at ${rate}/s: p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms, errors ${r.errors}, late ${result.late}, CPU µs/request ${cpu.map((c) => c.toFixed(0)).join(' + ')}`);
  return r;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Every target at the same moderate rate, `rounds` times with the targets interleaved; each figure the median of
 * a target's rounds, so one stall of a noisy host moves one round, not the reading.
 */
export async function moderateRounds(targets: readonly Target[], rate: number, seconds: number, rounds: number): Promise<LoadResult[]> {
  const all: LoadResult[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round += 1) for (const [i, t] of targets.entries()) all[i]!.push(await moderate(t, rate, seconds));
  return all.map((rs) => ({
    name: rs[0]!.name,
    rps: median(rs.map((r) => r.rps)),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
    errors: rs.reduce((n, r) => n + r.errors, 0),
    cpu: rs[0]!.cpu.map((_, k) => median(rs.map((r) => r.cpu[k]!))),
  }));
}

/** A quarter of what the slowest target sustains, in steps of 50 (at least 50): a rate nothing is saturated at. */
export function moderateRate(loads: readonly LoadResult[]): number {
  return Math.max(50, Math.floor(Math.min(...loads.map((r) => r.rps)) / 4 / 50) * 50);
}

export function us(x: number | undefined): string {
  return x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(0);
}
