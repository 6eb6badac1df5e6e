/**
 * The core's Prometheus metrics (docs/metrics.md), on a registry made per
 * app so several apps in one process never share or collide. Gauges of the
 * store are computed when scraped, from counts cached a couple of seconds,
 * so a scrape storm costs at most one set of counts per interval.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS, jobs as jobType, processMetrics, requestDuration, TallyCounter, TallyHistogram, tasks as taskType } from '../../../kernel/index.ts';
import type { CounterTally, DocType, HistogramTally, ObserveRequest, StallCount, Store } from '../../../kernel/index.ts';
import { CORE_COLLECTION_NAMES } from '../store/collections.ts';
// The statuses jobs and tasks take (docs/lifecycle.md); each is always reported, 0 when none.
import { JOB_STATUSES, TASK_STATUSES } from '../engine/lifecycle.ts';

/** What the engine reports as it runs jobs. */
export interface EngineObserver {
  jobStarted(): void;
  /** A job reached a final status (`complete`, `canceled`, `error`). */
  jobFinished(status: string): void;
  /** A task handler answered, with its finish state, after `seconds`. */
  taskFinished(finishState: string, seconds: number): void;
}

export interface CoreMetrics {
  readonly registry: Registry;
  readonly request: ObserveRequest;
  readonly engine: EngineObserver;
  /** One relayed request to an adapter; `adapter` is a configured name, so bounded. */
  relay(adapter: string, outcome: 'ok' | 'error', seconds: number): void;
  schedulerRun(scheduler: string, outcome: 'ok' | 'failed'): void;
}

const CACHE_MS = 2000;

/** Counts of one collection by status, at most one round every CACHE_MS. */
function statusCounts(store: Store, type: DocType, statuses: readonly string[], now: () => number): () => Promise<Map<string, number>> {
  const field = type.fields.get('status')!;
  let cached: { at: number; counts: Promise<Map<string, number>> } | null = null;
  return () => {
    if (cached && now() - cached.at < CACHE_MS) return cached.counts;
    const counts = Promise.all(statuses.map(async (status) => [status, await store.collection(type.collection).count({ kind: 'compare', op: 'eq', field, value: status })] as const)).then((pairs) => new Map(pairs));
    cached = { at: now(), counts };
    // A failed count is not kept: the next scrape asks again.
    counts.catch(() => {
      cached = null;
    });
    return counts;
  };
}

/** A gauge of documents by status, counted when scraped. */
function statusGauge(registry: Registry, name: string, help: string, counts: () => Promise<Map<string, number>>): void {
  new Gauge({
    name,
    help,
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      for (const [status, n] of await counts()) this.set({ status }, n);
    },
  });
}

/**
 * The embedded store's search thread (docs/search.md, "Searches off the event loop"), when the store was opened
 * with one: whether callers' searches run there, how many wait for it, and how often it was started again. While
 * it is not up, a search that reads every row holds the core, so this is what an operator alerts on.
 */
function searchThreadMetrics(registry: Registry, store: Store): void {
  if ((store.searchThread()?.state ?? 'off') === 'off') return;
  const status = () => store.searchThread()!;
  new Gauge({
    name: 'iap_store_search_thread_up',
    help: 'Whether callers\' searches run on the store\'s search thread (1) or on the event loop (0)',
    registers: [registry],
    collect() {
      this.set(status().state === 'ready' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'iap_store_searches_held',
    help: 'Callers\' searches queued for the store\'s search thread or at it',
    registers: [registry],
    collect() {
      this.set(status().held);
    },
  });
  let counted = 0;
  new Counter({
    name: 'iap_store_search_thread_restarts_total',
    help: 'Times the store\'s search thread was started again after it died',
    registers: [registry],
    collect() {
      const restarts = status().restarts;
      if (restarts > counted) this.inc(restarts - counted);
      counted = restarts;
    },
  });
}

/** `stalls` is the core's stall detector (main.ts); without one, the process's, if any. */
export function createCoreMetrics(store: Store, now: () => number = Date.now, stalls?: StallCount): CoreMetrics {
  const registry = new Registry();
  processMetrics(registry, stalls);
  statusGauge(registry, 'iap_jobs', 'Jobs in the store, by status', statusCounts(store, jobType, JOB_STATUSES, now));
  statusGauge(registry, 'iap_tasks', 'Tasks in the store, by status', statusCounts(store, taskType, TASK_STATUSES, now));
  let documents: { at: number; counts: Promise<Array<readonly [string, number]>> } | null = null;
  new Gauge({
    name: 'iap_store_documents',
    help: 'Documents in the store, by collection',
    labelNames: ['collection'] as const,
    registers: [registry],
    async collect() {
      if (!documents || now() - documents.at >= CACHE_MS) {
        documents = { at: now(), counts: Promise.all(CORE_COLLECTION_NAMES.map(async (c) => [c, await store.collection(c).count(null)] as const)) };
      }
      try {
        for (const [collection, n] of await documents.counts) this.set({ collection }, n);
      } catch (err) {
        documents = null;
        throw err;
      }
    },
  });
  searchThreadMetrics(registry, store);
  const started = new Counter({ name: 'iap_jobs_started_total', help: 'Jobs started by this core', registers: [registry] });
  const finished = new Counter({ name: 'iap_jobs_finished_total', help: 'Jobs that reached a final status in this core', labelNames: ['status'] as const, registers: [registry] });
  const taskDuration = new Histogram({ name: 'iap_task_duration_seconds', help: 'Time a task handler took, by finish state', labelNames: ['finish_state'] as const, buckets: DURATION_BUCKETS, registers: [registry] });
  const relayTotal = new TallyCounter({ name: 'iap_relay_requests_total', help: 'Requests relayed to orchestrator adapters', labelNames: ['adapter', 'outcome'] as const, registers: [registry] });
  const relayDuration = new TallyHistogram({ name: 'iap_relay_request_duration_seconds', help: 'Time a relayed request took', labelNames: ['adapter'] as const, buckets: DURATION_BUCKETS, registers: [registry] });
  // A relayed call is a hot path: its label sets are resolved once (the adapter is a configured name or `other`).
  const relayTallies = new Map<string, { readonly duration: HistogramTally; ok?: CounterTally; error?: CounterTally }>();
  const schedulerRuns = new Counter({ name: 'iap_scheduler_runs_total', help: 'Scheduled documents run, by scheduler and outcome', labelNames: ['scheduler', 'outcome'] as const, registers: [registry] });
  return {
    registry,
    request: requestDuration(registry, 'core'),
    engine: {
      jobStarted: () => started.inc(),
      jobFinished: (status) => finished.inc({ status }),
      taskFinished: (finishState, seconds) => taskDuration.observe({ finish_state: finishState }, seconds),
    },
    relay(adapter, outcome, seconds) {
      let tallies = relayTallies.get(adapter);
      if (tallies === undefined) {
        tallies = { duration: relayDuration.tally({ adapter }) };
        relayTallies.set(adapter, tallies);
      }
      (tallies[outcome] ??= relayTotal.tally({ adapter, outcome })).n += 1;
      tallies.duration.observe(seconds);
    },
    schedulerRun: (scheduler, outcome) => schedulerRuns.inc({ scheduler, outcome }),
  };
}
