/**
 * The request-duration histogram both services share, and the Koa middleware
 * that feeds it. The `route` label is always a template (`/jobs/:id`), a
 * mapping path or a fixed word, never the path a caller sent: a label per
 * raw path would grow without bound.
 */
import type { Context } from 'koa';
import { TallyHistogram } from './tally.ts';
import type { HistogramTally } from './tally.ts';
import type { Registry } from 'prom-client';

export type ServiceName = 'core' | 'gateway';

/** Observes one answered request; `seconds` from the first byte read to the answer. */
export type ObserveRequest = (method: string | undefined, route: string, status: number, seconds: number) => void;

const METHODS: readonly string[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Seconds: the rewritten and passed-through calls sit around a millisecond, searches up to a few hundred. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function requestDuration(registry: Registry, service: ServiceName): ObserveRequest {
  const histogram = new TallyHistogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template and status',
    labelNames: ['service', 'method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  // Found again by route, then by status and method as one number: no string is built per request.
  const byRoute = new Map<string, Map<number, HistogramTally>>();
  return (rawMethod, route, status, seconds) => {
    const method = rawMethod !== undefined ? METHODS.indexOf(rawMethod) : -1;
    let byCode = byRoute.get(route);
    if (!byCode) {
      byCode = new Map();
      byRoute.set(route, byCode);
    }
    const code = status * 8 + method + 1;
    let tally = byCode.get(code);
    if (!tally) {
      tally = histogram.tally({ service, method: METHODS[method] ?? 'OTHER', route, status: String(status) });
      byCode.set(code, tally);
    }
    tally.observe(seconds);
  };
}

/** Seconds since a `process.hrtime.bigint()` reading. */
export function secondsSince(startedNs: bigint): number {
  return Number(process.hrtime.bigint() - startedNs) / 1e9;
}

/** The @koa/router template that served the request, or `unmatched` (404s, 405s). */
export function routerTemplate(ctx: Context): string {
  return (ctx as { _matchedRoute?: string | RegExp })._matchedRoute?.toString() ?? 'unmatched';
}
