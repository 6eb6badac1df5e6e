/**
 * `GET /metrics`: the core's metrics in Prometheus's text format, for
 * holders of `Metrics.read` (a scraper's service account) or `Metrics.admin`
 * (every administrator, through the `admins` group).
 */
import type { Registry } from 'prom-client';
import { routeHelper } from '../http/route.ts';
import type { AnyRoute } from '../http/route.ts';

export const METRICS_PROVENANCE = 'Metrics';
const route = routeHelper({ provenance: METRICS_PROVENANCE, shape: 'plain' });

export function metricsRoutes(registry: Registry): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: '/metrics',
      name: 'getMetrics',
      roles: ['read'],
      description: 'The Prometheus metrics of this core, in the text exposition format',
      answer: null,
      input: {},
      async handle(_input, ctx) {
        const text = await registry.metrics();
        ctx.koa.type = registry.contentType;
        ctx.koa.set('Cache-Control', 'no-store');
        // A Buffer keeps the type set above; a string would be sent as JSON.
        return { body: Buffer.from(text) };
      },
    }),
  ];
}
