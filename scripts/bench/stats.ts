/** Latency statistics: medians and percentiles, never means (the machines are noisy). */

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? Number.NaN };
}

export function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

/** Times an async call `runs` times after `warmup` untimed calls; answers milliseconds. */
export async function timeRuns(runs: number, warmup: number, call: (i: number) => Promise<void>): Promise<number[]> {
  for (let i = 0; i < warmup; i += 1) await call(i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await call(i);
    samples.push(performance.now() - started);
  }
  return samples;
}

/** Makes `total` calls with `inFlight` of them under way at once; resolves when the last has answered. */
export async function callsInFlight(total: number, inFlight: number, call: () => Promise<unknown>): Promise<void> {
  let sent = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (sent < total) {
      sent += 1;
      await call();
    }
  }));
}
