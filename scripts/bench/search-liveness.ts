/**
 * What a search that reads every job costs the rest of the core: `/health/live`
 * probed every 20 ms on the same core, first idle, then while the unindexed
 * sort of the mix runs over HTTP, one call after another. On the embedded
 * store callers' searches run on the store's search thread (docs/search.md,
 * "Searches off the event loop"); on the event loop each such search held
 * every other answer for its whole length (1.7 s at 1M jobs).
 */
import { probeWhile } from './loop.ts';
import { summarize } from './stats.ts';
import type { Summary } from './stats.ts';
import type { HttpTarget } from './search.ts';

export interface SearchLiveness {
  readonly idle: Summary;
  readonly searching: Summary;
  /** How long each of the long searches took. */
  readonly searches: Summary;
}

export async function searchLiveness(target: HttpTarget, query: string, searches: number): Promise<SearchLiveness> {
  const idleUntil = Date.now() + 2000;
  const idle = await probeWhile(target.baseUrl, () => Date.now() < idleUntil);
  let going = true;
  const probes = probeWhile(target.baseUrl, () => going);
  const took: number[] = [];
  try {
    for (let i = 0; i < searches; i += 1) {
      const started = performance.now();
      const res = await fetch(`${target.baseUrl}/operations-manager/jobs?${query}`, { headers: { authorization: `Bearer ${target.token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`the long search answered ${res.status}`);
      took.push(performance.now() - started);
    }
  } finally {
    going = false;
  }
  return { idle: summarize(idle), searching: summarize(await probes), searches: summarize(took) };
}
