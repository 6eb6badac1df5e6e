/**
 * Passes a request through to the core unchanged, on a pool of keep-alive
 * connections (without one, every call opens a socket and latency climbs to
 * about a second under load: shared/reference/node20-stack.md). When the core
 * cannot be reached the caller gets a quick 502 in the surface's own shape.
 */
import { Agent } from 'node:http';
import type { Middleware } from 'koa';
import { createProxyServer } from 'http-proxy-3';
import { AppError } from '../../core/src/errors.ts';
import { renderError } from '../../core/src/http/error-handler.ts';
import type { RequestState } from '../../core/src/http/request-context.ts';

export interface ProxyOptions {
  readonly target: string;
  readonly timeoutMs: number;
}

export function passThrough(options: ProxyOptions): { middleware: Middleware; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 1000 });
  const proxy = createProxyServer({ target: options.target, agent, xfwd: true, proxyTimeout: options.timeoutMs });

  const middleware: Middleware = async function passThroughMiddleware(ctx) {
    const state = ctx.state as RequestState;
    ctx.req.headers['x-request-id'] = state.requestId;
    ctx.respond = false;
    await new Promise<void>((resolve) => {
      ctx.res.once('close', () => resolve());
      proxy.web(ctx.req, ctx.res, {}, (err: Error) => {
        const status = 502;
        state.logger.warn('core unreachable', { error: err.message, status });
        if (!ctx.res.headersSent) {
          const appError = new AppError(status, 'UPSTREAM_FAILED', 'The core service is not reachable; try again shortly');
          const surface = ctx.path.startsWith('/operations-manager') ? 'operations-manager' : 'plain';
          ctx.res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Error-Code': appError.code, 'X-Request-Id': state.requestId, 'Cache-Control': 'no-store' });
          ctx.res.end(JSON.stringify(renderError(surface, appError)));
        } else {
          ctx.res.destroy();
        }
        resolve();
      });
    });
  };
  return {
    middleware,
    close() {
      proxy.close();
      agent.destroy();
    },
  };
}
