/**
 * Metrics for the busiest paths, counted in plain numbers and handed to
 * prom-client only when scraped.
 *
 * prom-client's `observe` and `inc` hash the label values into a string and
 * look up bucket counts by number-keyed properties on every call: about
 * 2 µs per answered request in each service, most of what metrics cost a
 * rewritten legacy call (BENCHMARKS.md). Here a label set is resolved once
 * to a tally, and each observation is a bucket search and three additions.
 */
import { Counter, Histogram } from 'prom-client';
import type { CounterConfiguration, HistogramConfiguration, LabelValues, MetricObjectWithValues, MetricValueWithName } from 'prom-client';

/** One label set's counts: `counts[i]` holds observations in bucket i alone (the last is above every bound). */
export class HistogramTally {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Readonly<Record<string, string | number>>,
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    // Prometheus buckets are upper-inclusive: a value equal to a bound counts in that bound's bucket.
    while (i < bounds.length && value > bounds[i]!) i += 1;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

/** One label set as a map key, its values in the metric's label order. */
function labelKey<T extends string>(names: readonly T[], labels: LabelValues<T>): string {
  return names.map((n) => String(labels[n] ?? '')).join('\u0000');
}

/** A value as prom-client's own histogram holds it before `get` merges the label sets (lib/histogram.js). */
type SplitValue<T extends string> = MetricValueWithName<T> & { readonly sharedLabels: Readonly<Record<string, string | number>>; readonly exemplar: null | undefined };

/** prom-client's own reading of its label sets; the Registry calls it, not `get`, for the text format (lib/registry.js). */
const ownValues = (Histogram.prototype as unknown as { getForPromString(this: Histogram<string>): Promise<MetricObjectWithValues<SplitValue<string>>> }).getForPromString;

/**
 * A histogram whose label sets can be tallies. It is a prom-client Histogram:
 * the same configuration and checks, registered and written like one, and
 * `observe` still works; `tally(labels)` gives the fast way in.
 */
export class TallyHistogram<T extends string> extends Histogram<T> {
  private readonly tallies = new Map<string, HistogramTally>();
  private readonly bounds: readonly number[];
  private readonly metric: string;
  private readonly labelList: readonly T[];

  constructor(config: HistogramConfiguration<T> & { readonly buckets: readonly number[] }) {
    super({ ...config, buckets: [...config.buckets] });
    this.metric = config.name;
    this.labelList = [...(config.labelNames ?? [])];
    this.bounds = [...config.buckets].sort((a, b) => a - b);
  }

  /** The tally of one label set, made on first use; keep it and observe on it. */
  tally(labels: LabelValues<T>): HistogramTally {
    const key = labelKey(this.labelList, labels);
    let tally = this.tallies.get(key);
    if (!tally) {
      // Checked now, rather than at a scrape that could not say which call was wrong.
      for (const name of Object.keys(labels)) if (!this.labelList.includes(name as T)) throw new Error(`${name} is not a label of ${this.metric}`);
      tally = new HistogramTally(this.bounds, { ...labels } as Record<string, string | number>);
      this.tallies.set(key, tally);
    }
    return tally;
  }

  async getForPromString(): Promise<MetricObjectWithValues<SplitValue<T>>> {
    const own = (await ownValues.call(this)) as MetricObjectWithValues<SplitValue<T>>;
    for (const t of this.tallies.values()) own.values.push(...this.valuesOf(t));
    return own;
  }

  override reset(): void {
    super.reset();
    // prom-client's constructor calls reset before this class's fields exist.
    (this.tallies as Map<string, HistogramTally> | undefined)?.clear();
  }

  private valuesOf(t: HistogramTally): Array<SplitValue<T>> {
    const bucket = `${this.metric}_bucket`;
    const out: Array<SplitValue<T>> = [];
    let cumulative = 0;
    this.bounds.forEach((le, i) => {
      cumulative += t.counts[i]!;
      out.push({ labels: { le } as Partial<Record<T, string | number>>, sharedLabels: t.labels, value: cumulative, metricName: bucket, exemplar: null });
    });
    out.push({ labels: { le: '+Inf' } as Partial<Record<T, string | number>>, sharedLabels: t.labels, value: t.count, metricName: bucket, exemplar: null });
    out.push({ labels: {}, sharedLabels: t.labels, value: t.sum, metricName: `${this.metric}_sum`, exemplar: undefined });
    out.push({ labels: {}, sharedLabels: t.labels, value: t.count, metricName: `${this.metric}_count`, exemplar: undefined });
    return out;
  }
}

/** One label set of a TallyCounter: add to `n`; it reaches prom-client at the next scrape. */
export interface CounterTally {
  n: number;
}

/**
 * A counter whose label sets are plain numbers, moved into the prom-client
 * counter when it is collected. The counter is the real one: its values,
 * help and type are prom-client's.
 */
export class TallyCounter<T extends string> {
  /** Each label set seen, by its key, with its tally. */
  private readonly tallies = new Map<string, { readonly labels: LabelValues<T>; readonly tally: CounterTally }>();
  private readonly labelList: readonly T[];
  private readonly counter: Counter<T>;

  constructor(config: CounterConfiguration<T>) {
    const tallies = this.tallies;
    const own = config.collect;
    this.labelList = [...(config.labelNames ?? [])];
    this.counter = new Counter<T>({
      ...config,
      collect() {
        for (const { labels, tally } of tallies.values()) {
          if (tally.n > 0) this.inc(labels, tally.n);
          tally.n = 0;
        }
        return own?.call(this);
      },
    });
  }

  /** The tally of one label set, made on first use and shown as 0 from then on. */
  tally(labels: LabelValues<T>): CounterTally {
    const key = labelKey(this.labelList, labels);
    let seen = this.tallies.get(key);
    if (!seen) {
      // Validates the labels now, rather than at a scrape that could not say which call was wrong.
      this.counter.inc(labels, 0);
      seen = { labels, tally: { n: 0 } };
      this.tallies.set(key, seen);
    }
    return seen.tally;
  }
}
