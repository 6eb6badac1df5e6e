/**
 * Memory of the core and the gateway during the run, read from outside:
 * resident memory from /proc, and the V8 heap from Node's diagnostic report
 * (written on SIGUSR2; processes.ts starts the services with it on). The
 * report neither forces a garbage collection nor needs the service's help.
 *
 * "No memory growth" is judged on the part of the run after the warm-up:
 *
 * - heap: a leak of JavaScript objects raises the heap's floor, the heap used
 *   just after collections. The floor is the smallest sample in each bucket
 *   of `bucketSeconds`; a least-squares line through the floors, projected
 *   over the judged part, must grow less than the larger of 10 MB and 10% of
 *   the mean floor.
 * - resident memory: a least-squares line through every sample, projected
 *   over the judged part, must grow less than 50 MB plus the room the
 *   process's SQLite page cache had to fill (its 64 MB cap, or the store
 *   file's size when smaller): the cache fills as the store grows and is
 *   read, which is data, not a leak. It is the looser check; the store files'
 *   growth is reported beside it.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cpuMicrosOf, memoryOf } from '../bench/child.ts';
import type { Service } from './processes.ts';

const MB = 1024 * 1024;

/** The SQLite page cache each store may hold (store.ts: cache_size = -65536). */
export const PAGE_CACHE_MB = 64;

export interface Sample {
  /** Seconds since the load started (negative before it). */
  readonly at: number;
  readonly rssMb: number;
  /** V8 heap in use, or null when no report came back in time. */
  readonly heapMb: number | null;
  /** Memory outside the V8 heap held by JavaScript objects (Buffers). */
  readonly externalMb: number | null;
  readonly cpuMicros: number;
}

/** Asks the service for a diagnostic report and reads its heap figures. */
async function heapOf(service: Service, waitMs: number): Promise<{ heapMb: number; externalMb: number } | null> {
  service.child.kill('SIGUSR2');
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    for (const file of readdirSync(service.reportDir)) {
      const path = join(service.reportDir, file);
      let report: { javascriptHeap?: { usedMemory?: number; externalMemory?: number } };
      try {
        report = JSON.parse(readFileSync(path, 'utf8')) as typeof report;
      } catch {
        continue; // still being written
      }
      rmSync(path, { force: true });
      const heap = report.javascriptHeap;
      if (typeof heap?.usedMemory !== 'number') return null;
      return { heapMb: heap.usedMemory / MB, externalMb: (heap.externalMemory ?? 0) / MB };
    }
  }
  return null;
}

export class MemorySampler {
  readonly samples = new Map<Service['name'], Sample[]>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly services: readonly Service[], private readonly loadStartedAt: () => number) {
    for (const s of services) this.samples.set(s.name, []);
  }

  async sampleOnce(): Promise<void> {
    const at = (performance.now() - this.loadStartedAt()) / 1000;
    await Promise.all(this.services.map(async (s) => {
      const { rssMb } = memoryOf(s.child.pid!);
      const cpuMicros = cpuMicrosOf(s.child.pid!);
      const heap = await heapOf(s, 3000);
      this.samples.get(s.name)!.push({ at, rssMb, heapMb: heap?.heapMb ?? null, externalMb: heap?.externalMb ?? null, cpuMicros });
    }));
  }

  start(everySeconds: number): void {
    this.timer = setInterval(() => {
      // Samples never overlap: a slow report delays the next one.
      this.running = this.running.then(() => this.sampleOnce());
    }, everySeconds * 1000);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}

export interface Trend {
  readonly first: number;
  readonly last: number;
  readonly peak: number;
  /** Growth of the fitted line over the judged part, MB. */
  readonly growth: number;
  readonly limit: number;
  readonly ok: boolean;
}

/** Least-squares slope of y over x. */
export function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export interface Verdict {
  readonly rss: Trend;
  readonly heap: Trend | null;
  /** Seconds judged (after the warm-up, until the load stopped). */
  readonly judgedSeconds: number;
}

export function judge(samples: readonly Sample[], warmupEnd: number, loadEnd: number, bucketSeconds: number, cacheRoomMb: number): Verdict {
  const judged = samples.filter((s) => s.at >= warmupEnd && s.at <= loadEnd);
  const span = loadEnd - warmupEnd;
  const rssPoints = judged.map((s) => [s.at, s.rssMb] as const);
  const rssGrowth = slope(rssPoints) * span;
  const rssLimit = 50 + cacheRoomMb;
  const rss: Trend = { first: judged[0]?.rssMb ?? Number.NaN, last: judged[judged.length - 1]?.rssMb ?? Number.NaN, peak: Math.max(...judged.map((s) => s.rssMb)), growth: rssGrowth, limit: rssLimit, ok: rssGrowth < rssLimit };
  const withHeap = judged.filter((s) => s.heapMb !== null);
  if (withHeap.length < 2) return { rss, heap: null, judgedSeconds: span };
  const floors = new Map<number, readonly [number, number]>();
  for (const s of withHeap) {
    const bucket = Math.floor((s.at - warmupEnd) / bucketSeconds);
    const seen = floors.get(bucket);
    if (!seen || s.heapMb! < seen[1]) floors.set(bucket, [s.at, s.heapMb!]);
  }
  const floorPoints = [...floors.values()];
  const meanFloor = floorPoints.reduce((n, p) => n + p[1], 0) / floorPoints.length;
  const heapGrowth = slope(floorPoints) * span;
  const limit = Math.max(10, meanFloor * 0.1);
  const heaps = withHeap.map((s) => s.heapMb!);
  return {
    rss,
    heap: { first: floorPoints[0]![1], last: floorPoints[floorPoints.length - 1]![1], peak: Math.max(...heaps), growth: heapGrowth, limit, ok: heapGrowth < limit },
    judgedSeconds: span,
  };
}
