/**
 * The gateway's description and metrics, served in its Koa app beside the
 * audit report: `GET /openapi.json` and `GET /docs` (public), `GET /metrics`
 * for holders of `Metrics.read` or `Metrics.admin`, asked of the upstream as
 * the report asks (gateway/src/caller-roles.ts). At the gateway these
 * paths are its own; the core's are at the core's address.
 */
import type { Context, Middleware } from 'koa';
import { AppError, DOCS_HEADERS, DOCS_PATH, docsAsset, docsPage, METRICS_PROVENANCE, OPENAPI_PATH, ValidationError } from '../../kernel/index.ts';
import { REPORT_PATH } from './audit/report-route.ts';
import { requireRole } from './caller-roles.ts';
import type { RoleCheck } from './caller-roles.ts';
import type { CoreClient } from './core-client.ts';
import type { GatewayMetrics } from './metrics.ts';
import { GATEWAY_LIVENESS } from './openapi/own-routes.ts';

export const METRICS_PATH = '/metrics';
/**
 * Metrics.read (a scraper) or Metrics.admin, by name; a scraper may not read
 * the role list, so the method those roles grant admits it too.
 */
const METRICS_READERS: RoleCheck = {
  roles: [
    { provenance: METRICS_PROVENANCE, name: 'read' },
    { provenance: METRICS_PROVENANCE, name: 'admin' },
  ],
  methods: [{ provenance: METRICS_PROVENANCE, name: 'getMetrics' }],
  refusal: 'The metrics are for holders of Metrics.read (a scraper) or Metrics.admin',
};
const DOCS_PREFIX = `${DOCS_PATH}/`;

/** Paths the gateway answers itself rather than passing through (besides `/gateway/...`). */
export function isOwnPath(pathname: string): boolean {
  return pathname === OPENAPI_PATH || pathname === DOCS_PATH || pathname === METRICS_PATH || pathname.startsWith(DOCS_PREFIX);
}

/**
 * The metrics' `route` label of a request in the gateway's Koa app: a fixed
 * set; `unmatched` for a method the gateway's own paths do not take (405, as
 * the core labels it), `passthrough` for what goes on to the core.
 */
export function ownRouteOf(ctx: Context): string {
  const path = ctx.path;
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return path === REPORT_PATH || isOwnPath(path) ? 'unmatched' : 'passthrough';
  if (path === GATEWAY_LIVENESS || path === REPORT_PATH || path === OPENAPI_PATH || path === DOCS_PATH || path === METRICS_PATH) return path;
  if (path.startsWith(DOCS_PREFIX)) return `${DOCS_PATH}/:file`;
  return 'passthrough';
}

export interface OwnRoutesDeps {
  /** The gateway's document as JSON (gateway/src/openapi/source.ts). */
  readonly document: () => Promise<string>;
  readonly metrics: GatewayMetrics | null;
  readonly client: CoreClient;
}

function onlyGet(ctx: Context): void {
  if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
    ctx.set('Allow', 'GET, HEAD');
    throw new AppError(405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; use GET`);
  }
  // As the core's routes: no parameter but the credential one (core/src/http/mount.ts).
  const extra = [...new URLSearchParams(ctx.querystring).keys()].filter((name) => name !== 'token');
  if (extra.length > 0) {
    throw new ValidationError(`Invalid query: ${extra.join(', ')} not accepted`, extra.map((parameter) => ({ parameter, message: 'is not a parameter of this operation' })));
  }
}

export function ownRoutes(deps: OwnRoutesDeps): Middleware {
  return async function gatewayOwnRoutes(ctx, next) {
    const path = ctx.path;
    if (!isOwnPath(path) || (path === METRICS_PATH && !deps.metrics)) return next();
    onlyGet(ctx);
    if (path === OPENAPI_PATH) {
      const json = await deps.document();
      ctx.type = 'application/json';
      ctx.body = json;
    } else if (path === METRICS_PATH) {
      await requireRole(ctx, deps.client, METRICS_READERS);
      ctx.set('Cache-Control', 'no-store');
      ctx.type = deps.metrics!.registry.contentType;
      ctx.body = await deps.metrics!.registry.metrics();
    } else {
      const asset = path === DOCS_PATH ? docsPage() : docsAsset(path.slice(DOCS_PREFIX.length));
      if (!asset) throw new AppError(404, 'NOT_FOUND', `No file ${path} in the reference`);
      ctx.set(DOCS_HEADERS);
      ctx.type = asset.type;
      ctx.body = asset.body;
    }
  };
}
