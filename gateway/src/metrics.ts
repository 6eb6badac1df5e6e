/**
 * The gateway's Prometheus metrics (docs/metrics.md), on a registry made per
 * app. Legacy calls are counted by operation (the mapping table's names, a
 * fixed set), outcome and removal release, so an alert can find operations
 * still called close to their removal.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import { processMetrics, requestDuration, TallyCounter } from '../../kernel/index.ts';
import type { CounterTally, ObserveRequest, StallCount } from '../../kernel/index.ts';
import type { Outcome } from './audit/recorder.ts';
import type { Entry } from './mapping/types.ts';
import type { ReleaseCalendar } from './releases.ts';

export type UpstreamError = 'unreachable' | 'timeout' | 'closed';

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly request: ObserveRequest;
  legacyCall(entry: Entry, outcome: Outcome): void;
  upstreamError(kind: UpstreamError): void;
}

export interface GatewayMetricsDeps {
  /** Audit records accepted and not yet stored. */
  readonly auditBacklog: () => number;
  /** The date of each removal release the table names, in epoch seconds: lets an alert see removals coming. */
  readonly removals: ReadonlyMap<string, number>;
  /** The gateway's stall detector, whose count `iap_event_loop_stalls_total` reports; none in tests that start no detector. */
  readonly stalls?: StallCount;
}

/** The removal dates of a mapping table's releases, for GatewayMetricsDeps. */
export function removalDates(entries: readonly Entry[], calendar: ReleaseCalendar): Map<string, number> {
  return new Map(entries.map((e) => [e.removed, calendar.dateOf(e.removed).getTime() / 1000]));
}

export function createGatewayMetrics(deps: GatewayMetricsDeps): GatewayMetrics {
  const registry = new Registry();
  processMetrics(registry, deps.stalls);
  const legacy = new TallyCounter({ name: 'iap_legacy_calls_total', help: 'Legacy operations called, by operation, outcome and the release that removes them', labelNames: ['operation', 'outcome', 'removed_in'] as const, registers: [registry] });
  const upstream = new Counter({ name: 'iap_gateway_upstream_errors_total', help: 'Calls passed through that the core did not answer, by kind', labelNames: ['kind'] as const, registers: [registry] });
  new Gauge({
    name: 'iap_audit_backlog',
    help: 'Legacy-call audit records accepted and not yet stored',
    registers: [registry],
    collect() {
      this.set(deps.auditBacklog());
    },
  });
  const removal = new Gauge({ name: 'iap_legacy_removal_timestamp_seconds', help: 'When a release removes the legacy operations it removes (midnight UTC of its date)', labelNames: ['removed_in'] as const, registers: [registry] });
  for (const [release, seconds] of deps.removals) removal.set({ removed_in: release }, seconds);
  // Tallies found once per entry and outcome: the busiest path builds no label string.
  const tallies = new Map<Entry, Map<Outcome, CounterTally>>();
  return {
    registry,
    request: requestDuration(registry, 'gateway'),
    legacyCall(entry, outcome) {
      let byOutcome = tallies.get(entry);
      if (!byOutcome) {
        byOutcome = new Map();
        tallies.set(entry, byOutcome);
      }
      let tally = byOutcome.get(outcome);
      if (!tally) {
        tally = legacy.tally({ operation: entry.operation, outcome, removed_in: entry.removed });
        byOutcome.set(outcome, tally);
      }
      tally.n += 1;
    },
    upstreamError: (kind) => upstream.inc({ kind }),
  };
}
