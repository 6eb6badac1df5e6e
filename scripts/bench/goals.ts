/**
 * Every goal `npm run bench` judges, declared once: its figure, what it is
 * measured beside and its threshold. Sections hand in readings (numbers
 * only); whether a goal is met, the words of its goal and the line drawn in
 * its panel all come from here, so a new figure is one entry below and no
 * threshold is written anywhere else (test/scripts/bench/goals.test.ts).
 */

export type Section = 'search' | 'engine' | 'core' | 'gateway' | 'relay' | 'archive';

/**
 * How a reading is judged against the threshold:
 * - `value`: the figure itself (`p50 ≤ 5 ms`);
 * - `ratio`: the figure over its baseline (`≤ 2× the floor`);
 * - `added`: the figure minus its baseline (`≤ 0.5 ms added`).
 */
export type Compare = 'value' | 'ratio' | 'added';

export interface GoalSpec {
  readonly section: Section;
  /** What is measured; a reading may name its subject (a query), which is put in front. */
  readonly figure: string;
  /** What it is measured beside in the same run, or null for an absolute goal. */
  readonly baseline: string | null;
  readonly unit: string;
  readonly compare: Compare;
  /** `max`: the judged value must not exceed the threshold; `min`: must reach it. */
  readonly bound: 'max' | 'min';
  /** A strict bound (`<`, `>`), where the issue wrote one. */
  readonly strict?: boolean;
  readonly threshold: number;
}

const indexedSearch = (pick: 'p50' | 'p99', threshold: number): GoalSpec => ({ section: 'search', figure: `${pick} ms over HTTP, the worse of cold and warm`, baseline: 'the store in-process', unit: 'ms', compare: 'value', bound: 'max', threshold });
const metricsThroughput = (path: string): GoalSpec => ({ section: 'gateway', figure: `${path}: throughput with metrics (req/s), median of window ratios`, baseline: 'metrics off', unit: 'req/s', compare: 'ratio', bound: 'min', strict: true, threshold: 0.95 });
const metricsCpu = (path: string): GoalSpec => ({ section: 'gateway', figure: `${path}: CPU per request with metrics (µs), median of window ratios`, baseline: 'metrics off', unit: 'µs', compare: 'ratio', bound: 'max', strict: true, threshold: 1.05 });
const coreCpu = (path: string): GoalSpec => ({ section: 'core', figure: `${path}: core CPU per request, saturated (µs)`, baseline: 'its bare Node floor', unit: 'µs', compare: 'ratio', bound: 'max', threshold: 2 });

/** Keyed by a stable name that sections use; the order here is the summary's order within a section. */
export const GOALS = {
  'search.indexed-p50': indexedSearch('p50', 5),
  'search.indexed-p99': indexedSearch('p99', 20),
  'search.text-p50': indexedSearch('p50', 50),
  'search.exact-totals': { section: 'search', figure: 'exact totals: cold p50 over warm p50 over HTTP, worst indexed query (deep skip exempt)', baseline: 'warm: total remembered', unit: 'ms', compare: 'ratio', bound: 'max', threshold: 1.2 },
  'search.live-p99-unindexed': { section: 'search', figure: '/health/live p99 ms while searches that read every job run (the unindexed sort)', baseline: null, unit: 'ms', compare: 'value', bound: 'max', strict: true, threshold: 100 },
  'search.memory': { section: 'search', figure: 'core memory after the mix, peak RSS (MB)', baseline: null, unit: 'MB', compare: 'value', bound: 'max', strict: true, threshold: 500 },
  'engine.jobs-per-second': { section: 'engine', figure: '10-task jobs completed per second', baseline: null, unit: 'jobs/s', compare: 'value', bound: 'min', threshold: 1000 },
  'engine.live-p99-looping': { section: 'engine', figure: '/health/live p99 ms while a job loops', baseline: null, unit: 'ms', compare: 'value', bound: 'max', strict: true, threshold: 100 },
  'engine.start-to-complete-p50': { section: 'engine', figure: 'start-to-complete p50 ms', baseline: null, unit: 'ms', compare: 'value', bound: 'max', strict: true, threshold: 50 },
  'engine.ten-tasks-over-no-tasks-p50': { section: 'engine', figure: 'start-to-complete p50 ms of a ten-task job', baseline: 'a job with no tasks', unit: 'ms', compare: 'ratio', bound: 'max', threshold: 2 },
  'core.job-read-cpu': coreCpu('job read by id'),
  'core.search-page-cpu': coreCpu('search page'),
  'core.job-start-cpu': coreCpu('job start'),
  'gateway.pass-through-throughput': { section: 'gateway', figure: 'pass-through throughput, saturated (req/s)', baseline: 'the bare Node proxy', unit: 'req/s', compare: 'ratio', bound: 'min', threshold: 0.9 },
  'gateway.pass-through-cpu-saturated': { section: 'gateway', figure: 'pass-through: proxy CPU per request, saturated (µs)', baseline: 'the bare Node proxy', unit: 'µs', compare: 'ratio', bound: 'max', threshold: 1.15 },
  'gateway.pass-through-cpu-moderate': { section: 'gateway', figure: 'pass-through: proxy CPU per request, moderate rate (µs)', baseline: 'the bare Node proxy', unit: 'µs', compare: 'ratio', bound: 'max', threshold: 1.25 },
  'gateway.pass-through-p99-added': { section: 'gateway', figure: 'pass-through p99 ms, moderate rate', baseline: 'the bare Node proxy', unit: 'ms', compare: 'added', bound: 'max', strict: true, threshold: 2 },
  'gateway.rewrite-throughput': { section: 'gateway', figure: 'rewritten getJob throughput, saturated (req/s)', baseline: 'the new call through the gateway', unit: 'req/s', compare: 'ratio', bound: 'min', threshold: 0.75 },
  'gateway.rewrite-cpu-saturated': { section: 'gateway', figure: 'rewritten getJob: proxy CPU per request, saturated (µs)', baseline: 'the bare Node rewrite', unit: 'µs', compare: 'ratio', bound: 'max', threshold: 1.15 },
  'gateway.rewrite-cpu-moderate': { section: 'gateway', figure: 'rewritten getJob: proxy CPU per request, moderate rate (µs)', baseline: 'the bare Node rewrite', unit: 'µs', compare: 'ratio', bound: 'max', threshold: 1.25 },
  'gateway.rewrite-p99-added': { section: 'gateway', figure: 'rewritten getJob p99 ms, moderate rate', baseline: 'the new call through the gateway', unit: 'ms', compare: 'added', bound: 'max', strict: true, threshold: 2 },
  'gateway.rewrite-p50-ratio': { section: 'gateway', figure: 'rewritten getJob p50 ms, moderate rate', baseline: 'the new call through the gateway', unit: 'ms', compare: 'ratio', bound: 'max', threshold: 1.25 },
  'gateway.metrics-pass-through-throughput': metricsThroughput('gateway pass-through'),
  'gateway.metrics-pass-through-cpu': metricsCpu('gateway pass-through'),
  'gateway.metrics-rewrite-throughput': metricsThroughput('legacy getJob, rewritten'),
  'gateway.metrics-rewrite-cpu': metricsCpu('legacy getJob, rewritten'),
  'relay.throughput': { section: 'relay', figure: 'restQuery throughput, saturated (req/s)', baseline: 'the bare Node relay', unit: 'req/s', compare: 'ratio', bound: 'min', threshold: 0.5 },
  'relay.p50-added': { section: 'relay', figure: 'restQuery p50 ms, one call at a time', baseline: 'the bare Node relay', unit: 'ms', compare: 'added', bound: 'max', threshold: 0.5 },
  'archive.loop-p99': { section: 'archive', figure: 'archiver event loop delay p99 (ms), the worse of alone and beside the search mix', baseline: 'an idle Node process', unit: 'ms', compare: 'value', bound: 'max', threshold: 10 },
} as const satisfies Record<string, GoalSpec>;

export type GoalKey = keyof typeof GOALS;
export type Goals = Readonly<Record<string, GoalSpec>>;

/** What a section measured for one goal: numbers, and the words to show them with. */
export interface Reading {
  readonly key: GoalKey;
  /** Put in front of the goal's figure when one goal is judged for several subjects (the queries of a mix). */
  readonly subject?: string;
  readonly figure: number;
  /** The baseline's figure from the same run; null for absolute goals. */
  readonly baseline: number | null;
  /** The judged value when it is not figure against baseline (a median of per-window ratios). */
  readonly judged?: number;
  /** How to show the figure and the baseline; the numbers with the goal's unit otherwise. */
  readonly shown?: string;
  readonly baselineShown?: string;
}

function number(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (Math.abs(x) >= 100) return x.toFixed(0);
  return Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** The value the threshold applies to. */
export function judgedValue(spec: GoalSpec, r: Reading): number {
  if (r.judged !== undefined) return r.judged;
  if (spec.compare === 'value' || r.baseline === null) return r.figure;
  return spec.compare === 'ratio' ? r.figure / r.baseline : r.figure - r.baseline;
}

export function isMet(spec: GoalSpec, r: Reading): boolean {
  const v = judgedValue(spec, r);
  if (!Number.isFinite(v)) return false;
  if (spec.bound === 'max') return spec.strict ? v < spec.threshold : v <= spec.threshold;
  return spec.strict ? v > spec.threshold : v >= spec.threshold;
}

/** A verdict as tables write it. */
export function verdict(met: boolean): string {
  return met ? 'met' : '**missed**';
}

/** The goal in words, from the threshold alone: `≤ 2× its bare Node floor`, `< 100 ms`, `≤ 0.5 ms added`. */
export function goalText(spec: GoalSpec): string {
  const sign = spec.bound === 'max' ? (spec.strict ? '<' : '≤') : spec.strict ? '>' : '≥';
  if (spec.compare === 'ratio') return `${sign} ${spec.threshold}× ${spec.baseline ?? 'the baseline'}`;
  if (spec.compare === 'added') return `${sign} ${spec.threshold} ${spec.unit} added`;
  return `${sign} ${spec.threshold} ${spec.unit}`;
}

/** Where a goal's line goes in a panel drawn in the goal's unit: the threshold, applied to the baseline when relative. */
export function goalLine(key: GoalKey, baseline: number | null = null, goals: Goals = GOALS): { value: number; label: string } {
  const spec = goals[key]!;
  const value = spec.compare === 'value' || baseline === null ? spec.threshold : spec.compare === 'ratio' ? spec.threshold * baseline : baseline + spec.threshold;
  return { value, label: `goal: ${goalText(spec)}` };
}

/** One reading judged: the summary's row and the sections' goal tables are drawn from these. */
export interface Judged {
  readonly section: Section;
  readonly figure: string;
  readonly baseline: string;
  readonly measured: string;
  readonly goal: string;
  readonly met: boolean;
}

export function judge(r: Reading, goals: Goals = GOALS): Judged {
  const spec = goals[r.key];
  if (!spec) throw new Error(`no goal is declared under ${r.key}`);
  const v = judgedValue(spec, r);
  const relative = spec.compare === 'ratio' ? ` (${number(v)}×)` : spec.compare === 'added' ? ` (${v >= 0 ? '+' : ''}${number(v)} ${spec.unit})` : '';
  return {
    section: spec.section,
    figure: r.subject === undefined ? spec.figure : `${r.subject}: ${spec.figure}`,
    baseline: spec.baseline === null ? '–' : `${spec.baseline} ${r.baselineShown ?? (r.baseline === null ? '' : number(r.baseline))}`.trim(),
    measured: `${r.shown ?? number(r.figure)}${relative}`,
    goal: goalText(spec),
    met: isMet(spec, r),
  };
}

/** A section's own goal table, in its markdown. */
export function goalTable(readings: readonly Reading[], goals: Goals = GOALS): string[] {
  return [
    '| goal | baseline (same run) | measured | |',
    '|---|---|---|---|',
    ...readings.map((r) => judge(r, goals)).map((j) => `| ${j.figure}: ${j.goal} | ${j.baseline} | ${j.measured} | ${verdict(j.met)} |`),
  ];
}
