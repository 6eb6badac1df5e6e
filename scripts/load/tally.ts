/**
 * What the load run counts: per request kind, answers, latencies and errors
 * with their first reasons; and per time window, answers and errors, so a
 * slowdown or a burst of errors late in the soak shows where it happened.
 */
import { percentile } from '../bench/stats.ts';

export interface KindFigures {
  readonly kind: string;
  readonly target: string;
  readonly answered: number;
  readonly errors: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  /** Up to five distinct reasons, with how often each happened. */
  readonly reasons: ReadonlyArray<{ reason: string; count: number }>;
}

export interface Window {
  /** Seconds since the load started, at the window's start. */
  readonly from: number;
  readonly answered: number;
  readonly errors: number;
  readonly p99: number;
}

class KindTally {
  readonly latencies: number[] = [];
  answered = 0;
  errors = 0;
  readonly reasons = new Map<string, number>();
  constructor(readonly kind: string, readonly target: string) {}
}

export class Tally {
  private readonly kinds = new Map<string, KindTally>();
  private readonly windows: Array<{ answered: number; errors: number; latencies: number[] }> = [];
  private began = 0;
  private ended = 0;

  constructor(private readonly windowSeconds: number) {}

  start(): void {
    this.began = performance.now();
  }

  stop(): void {
    this.ended = performance.now();
  }

  private of(target: string, kind: string): KindTally {
    const key = `${target}\u0000${kind}`;
    let tally = this.kinds.get(key);
    if (!tally) {
      tally = new KindTally(kind, target);
      this.kinds.set(key, tally);
    }
    return tally;
  }

  private window(): { answered: number; errors: number; latencies: number[] } {
    const index = Math.max(0, Math.floor((performance.now() - this.began) / 1000 / this.windowSeconds));
    while (this.windows.length <= index) this.windows.push({ answered: 0, errors: 0, latencies: [] });
    return this.windows[index]!;
  }

  answered(target: string, kind: string, latencyMs: number): void {
    const tally = this.of(target, kind);
    tally.answered += 1;
    tally.latencies.push(latencyMs);
    const w = this.window();
    w.answered += 1;
    w.latencies.push(latencyMs);
  }

  error(target: string, kind: string, reason: string): void {
    const tally = this.of(target, kind);
    tally.errors += 1;
    tally.reasons.set(reason, (tally.reasons.get(reason) ?? 0) + 1);
    this.window().errors += 1;
  }

  get errors(): number {
    let n = 0;
    for (const t of this.kinds.values()) n += t.errors;
    return n;
  }

  get seconds(): number {
    return ((this.ended || performance.now()) - this.began) / 1000;
  }

  /** Per kind, core first, each target's kinds in the order first answered (their order in the sequence). */
  figures(): KindFigures[] {
    const seconds = this.seconds;
    return [...this.kinds.values()].sort((a, b) => a.target.localeCompare(b.target)).map((t) => {
      const sorted = t.latencies.sort((a, b) => a - b);
      return {
        kind: t.kind,
        target: t.target,
        answered: t.answered,
        errors: t.errors,
        perSecond: t.answered / seconds,
        p50: percentile(sorted, 50),
        p90: percentile(sorted, 90),
        p99: percentile(sorted, 99),
        max: sorted[sorted.length - 1] ?? Number.NaN,
        reasons: [...t.reasons].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([reason, count]) => ({ reason, count })),
      };
    });
  }

  /** All kinds together (or one target's), as one row. */
  total(target?: string): KindFigures {
    const picked = [...this.kinds.values()].filter((t) => target === undefined || t.target === target);
    const sorted = picked.flatMap((t) => t.latencies).sort((a, b) => a - b);
    const answered = picked.reduce((n, t) => n + t.answered, 0);
    return {
      kind: target === undefined ? 'all' : `all via ${target}`,
      target: target ?? 'both',
      answered,
      errors: picked.reduce((n, t) => n + t.errors, 0),
      perSecond: answered / this.seconds,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1] ?? Number.NaN,
      reasons: [],
    };
  }

  series(): Window[] {
    return this.windows.map((w, i) => ({ from: i * this.windowSeconds, answered: w.answered, errors: w.errors, p99: percentile(w.latencies.sort((a, b) => a - b), 99) }));
  }
}
