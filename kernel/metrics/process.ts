/** Node's default process metrics and the stall count, as both services expose them. */
import { collectDefaultMetrics, Counter } from 'prom-client';
import type { StallCount } from '../http/stall-detector.ts';
import type { Registry } from 'prom-client';

/**
 * prom-client also reports the active handle, request and resource counts
 * as gauges named `..._total`, next to the same gauges without the suffix;
 * `promtool check metrics` rejects `_total` on a gauge, so those copies go.
 */
const LINT_FAILING_COPIES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** `stalls` is the service's stall detector, read when scraped; without one (a test that starts none) the count is 0. */
export function processMetrics(registry: Registry, stalls?: StallCount): void {
  collectDefaultMetrics({ register: registry });
  for (const name of LINT_FAILING_COPIES) registry.removeSingleMetric(name);
  new Counter({
    name: 'iap_event_loop_stalls_total',
    help: 'Event-loop stalls longer than stalls.thresholdMs in this process',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(stalls?.count() ?? 0);
    },
  });
}
