/**
 * Passes a request through to the core unchanged, streaming both ways, on a
 * pool of keep-alive connections (without one, every call opens a socket and
 * latency climbs to about a second under load: shared/reference/node20-stack.md).
 * Hop-by-hop headers are dropped in both directions and X-Forwarded-* set. A
 * body over the limit is refused (413) without being buffered. When the core
 * cannot be reached the caller gets a quick 502, when it is too slow a 504,
 * both in the surface's own shape.
 */
import { Agent } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import type { Middleware } from 'koa';
import { createProxyServer } from 'http-proxy-3';
import { AppError } from '../../core/src/errors.ts';
import { renderError } from '../../core/src/http/error-handler.ts';
import type { RequestState } from '../../core/src/http/request-context.ts';

export interface ProxyOptions {
  readonly target: string;
  readonly timeoutMs: number;
  /** Largest request body passed through, in bytes. */
  readonly bodyLimitBytes: number;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'upgrade'];

export function stripHopByHop(headers: IncomingMessage['headers']): void {
  const listed = String(headers['connection'] ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
  for (const name of [...HOP_BY_HOP, ...listed]) delete headers[name];
}

/** Parses sizes such as `1mb` or `512kb` (the config's form). */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)$/i.exec(text.trim());
  if (!m) throw new Error(`not a size: ${text}`);
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[m[2]!.toLowerCase() as 'b' | 'kb' | 'mb' | 'gb'];
  return Math.floor(Number(m[1]) * unit);
}

export function passThrough(options: ProxyOptions): { middleware: Middleware; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 1000 });
  const proxy = createProxyServer({ target: options.target, agent, xfwd: true, proxyTimeout: options.timeoutMs });
  const upstream = new WeakMap<IncomingMessage, ClientRequest>();
  // Only remembered here: by the time this fires the upstream headers may already be sent.
  proxy.on('proxyReq', (proxyReq, req) => upstream.set(req, proxyReq));
  proxy.on('proxyRes', (proxyRes) => stripHopByHop(proxyRes.headers));

  const middleware: Middleware = async function passThroughMiddleware(ctx) {
    const state = ctx.state as RequestState;
    const surface = ctx.path.startsWith('/operations-manager') ? 'operations-manager' : 'plain';
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > options.bodyLimitBytes) throw new AppError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${options.bodyLimitBytes} bytes`);
    ctx.req.headers['x-request-id'] = state.requestId;
    // The proxy copies the incoming headers, so hop-by-hop ones are dropped before it does.
    stripHopByHop(ctx.req.headers);
    ctx.respond = false;
    const started = Date.now();
    // Counts a streamed body (no Content-Length) without holding it.
    let seen = 0;
    const limiter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        done(seen > options.bodyLimitBytes ? new AppError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large') : null, chunk);
      },
    });
    ctx.req.pipe(limiter);
    await new Promise<void>((resolve) => {
      ctx.res.once('close', () => resolve());
      const fail = (err: Error): void => {
        const tooLarge = err instanceof AppError && err.status === 413;
        const timedOut = !tooLarge && Date.now() - started >= options.timeoutMs - 5;
        const appError = tooLarge
          ? err
          : timedOut
            ? new AppError(504, 'UPSTREAM_TIMEOUT', 'The core service did not answer in time; try again shortly')
            : new AppError(502, 'UPSTREAM_FAILED', 'The core service is not reachable; try again shortly');
        state.logger.warn('pass-through failed', { error: err.message, status: appError.status });
        if (!ctx.res.headersSent) {
          ctx.res.writeHead(appError.status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Error-Code': appError.code, 'X-Request-Id': state.requestId, 'Cache-Control': 'no-store' });
          ctx.res.end(JSON.stringify(renderError(surface, appError)));
        } else {
          ctx.res.destroy();
        }
        resolve();
      };
      // http-proxy does not watch the stream it pipes from; a refused body must stop the upstream call here.
      limiter.on('error', (err: Error) => {
        upstream.get(ctx.req)?.destroy();
        fail(err);
      });
      proxy.web(ctx.req, ctx.res, { buffer: limiter }, fail);
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
