/**
 * Assembles the gateway. For now every call passes straight through to the
 * core; the legacy mapping table (rewrites, deprecation headers, removal and
 * the migration audit) is added in front of the pass-through.
 */
import Koa from 'koa';
import type { AppConfig } from '../../config/schema.ts';
import { errorHandler } from '../../core/src/http/error-handler.ts';
import { requestContext } from '../../core/src/http/request-context.ts';
import type { Logger } from '../../core/src/logger.ts';
import { passThrough } from './proxy.ts';

export interface GatewayDeps {
  readonly config: Readonly<AppConfig>;
  readonly logger: Logger;
}

export function createGatewayApp(deps: GatewayDeps): { app: Koa; close(): void } {
  const app = new Koa();
  app.silent = true;
  const proxy = passThrough({ target: deps.config.core.url, timeoutMs: 60_000 });
  app.use(requestContext(deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(async (ctx, next) => {
    // The gateway's own liveness, answered even when the core is down.
    if (ctx.method === 'GET' && ctx.path === '/gateway/health/live') {
      ctx.body = { status: 'ok' };
      return;
    }
    await next();
  });
  app.use(proxy.middleware);
  return { app, close: proxy.close };
}
