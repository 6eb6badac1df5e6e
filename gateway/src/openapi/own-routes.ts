/**
 * The gateway's own routes, written as route records so the core's
 * generator describes them like any other operation. They are served by
 * Koa middleware (app.ts), not mounted from these records: `handle` is
 * never called.
 */
import Joi from 'joi';
import { answer, closed, DOCS_ASSETS, DOCS_PATH, joiParams, joiQuery, METRICS_PROVENANCE, OBJECT, oneOfValues, open, OPENAPI_PATH, STRING } from '../../../kernel/index.ts';
import type { AnyRoute, RouteDef } from '../../../kernel/index.ts';
import { REPORT_PATH } from '../audit/report-route.ts';

const served = (): never => {
  throw new Error('described only: the gateway serves this route in app.ts');
};

/** A JSON answer is declared like a core route's; null (the default) for the text, HTML and report answers. */
function describe(route: Omit<RouteDef, 'handle' | 'shape' | 'answer'> & { shape?: RouteDef['shape']; answer?: RouteDef['answer'] }): AnyRoute {
  return { shape: 'plain', answer: null, ...route, handle: served } as AnyRoute;
}

export const GATEWAY_LIVENESS = '/gateway/health/live';

export function gatewayOwnRoutes(metrics: boolean): AnyRoute[] {
  const routes = [
    describe({ method: 'GET', path: GATEWAY_LIVENESS, name: 'getGatewayLiveness', provenance: 'Gateway', roles: 'public', description: "The gateway's liveness, answered even when the core is down", answer: answer(closed({ status: oneOfValues('ok') })), input: {} }),
    describe({
      method: 'GET',
      path: REPORT_PATH,
      name: 'getAuditReport',
      provenance: 'Authorization',
      roles: ['admin'],
      description: 'The migration audit report of legacy calls (docs/audit.md), as JSON, CSV or HTML',
      input: {
        query: joiQuery(Joi.object({ format: Joi.string().valid('json', 'csv', 'html'), target: Joi.string().description('The release to report against'), since: Joi.string().isoDate(), until: Joi.string().isoDate() })),
      },
    }),
    describe({ method: 'GET', path: OPENAPI_PATH, name: 'getOpenApi', provenance: 'Documentation', roles: 'public', description: "The gateway's OpenAPI 3.1 document: its own routes, the legacy operations and the core operations it passes through", answer: answer(open({ openapi: STRING, info: OBJECT, paths: OBJECT }, ['openapi', 'info', 'paths'])), input: {} }),
    describe({ method: 'GET', path: DOCS_PATH, name: 'getDocs', provenance: 'Documentation', roles: 'public', description: 'The interface reference, rendered from the OpenAPI document', input: {} }),
    describe({
      method: 'GET',
      path: `${DOCS_PATH}/:file`,
      name: 'getDocsFile',
      provenance: 'Documentation',
      roles: 'public',
      description: 'A file of the rendered reference (Swagger UI, from the swagger-ui-dist package)',
      input: { params: joiParams(Joi.object({ file: Joi.string().valid(...DOCS_ASSETS).required() })) },
    }),
  ];
  if (metrics) routes.push(describe({ method: 'GET', path: '/metrics', name: 'getMetrics', provenance: METRICS_PROVENANCE, roles: ['read'], description: 'The Prometheus metrics of this gateway, in the text exposition format; the core serves its own at its own address', input: {} }));
  return routes;
}
