/**
 * Passes a request through to the core unchanged, streaming both ways, on a
 * pool of keep-alive connections (without one, every call opens a socket and
 * latency climbs to about a second under load: shared/reference/node20-stack.md).
 * Hop-by-hop headers are dropped in both directions and X-Forwarded-* set. A
 * body over the limit is refused (413) without being buffered. When the core
 * cannot be reached the caller gets a quick 502, when it is too slow a 504,
 * both in the surface's own shape.
 *
 * Written on node:http rather than http-proxy: measured on this machine the
 * library cost 43% of a bare pass-through's throughput (BENCHMARKS.md), and
 * the few things it did for us fit in this file.
 */
import { Agent, request } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Middleware } from 'koa';
import { AppError } from '../../core/src/errors.ts';
import { renderError } from '../../core/src/http/error-handler.ts';
import type { SurfaceState } from '../../core/src/http/error-handler.ts';
import type { Surface } from '../../core/src/http/route.ts';
import type { RequestState } from '../../core/src/http/request-context.ts';

export interface ProxyOptions {
  readonly target: string;
  readonly timeoutMs: number;
  /** Largest request body passed through, in bytes. */
  readonly bodyLimitBytes: number;
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'upgrade', 'transfer-encoding'];

export function stripHopByHop(headers: IncomingHttpHeaders | Record<string, string>): void {
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
  const target = new URL(options.target);
  const agent = new Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 1000 });

  const middleware: Middleware = async function passThroughMiddleware(ctx) {
    const state = ctx.state as RequestState;
    // The errors answered here take the shape the core's route would have: its token endpoint speaks OAuth (RFC 6749).
    const surface: Surface = /^\/oauth\/token\/?$/.test(ctx.path) ? 'oauth' : ctx.path.startsWith('/operations-manager') ? 'operations-manager' : 'plain';
    // So does a 413 thrown to the error middleware.
    (ctx.state as SurfaceState).surface = surface;
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > options.bodyLimitBytes) throw new AppError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${options.bodyLimitBytes} bytes`);
    const headers: OutgoingHttpHeaders = { ...ctx.req.headers };
    stripHopByHop(headers as IncomingHttpHeaders);
    headers['host'] = target.host;
    headers['x-request-id'] = state.requestId;
    headers['x-forwarded-for'] = ctx.req.headers['x-forwarded-for'] ? `${ctx.req.headers['x-forwarded-for']}, ${ctx.ip}` : ctx.ip;
    headers['x-forwarded-host'] = ctx.req.headers['host'] ?? '';
    headers['x-forwarded-proto'] = ctx.protocol;
    if (ctx.req.headers['transfer-encoding'] && !ctx.req.headers['content-length']) headers['transfer-encoding'] = 'chunked';
    ctx.respond = false;
    const started = Date.now();
    await new Promise<void>((resolve) => {
      let settled = false;
      const fail = (appError: AppError, upstreamError?: Error): void => {
        if (settled) return;
        settled = true;
        upstream.destroy();
        state.logger.warn('pass-through failed', { error: upstreamError?.message ?? appError.message, status: appError.status });
        if (!ctx.res.headersSent) {
          ctx.res.writeHead(appError.status, { 'Content-Type': 'application/json; charset=utf-8', 'X-Error-Code': appError.code, 'X-Request-Id': state.requestId, 'Cache-Control': 'no-store' });
          ctx.res.end(JSON.stringify(renderError(surface, appError)));
        } else {
          ctx.res.destroy();
        }
        resolve();
      };
      const upstream = request({ host: target.hostname, port: target.port, path: ctx.req.url, method: ctx.req.method, headers, agent }, (res) => {
        const responseHeaders = { ...res.headers };
        stripHopByHop(responseHeaders);
        ctx.res.writeHead(res.statusCode ?? 502, responseHeaders);
        res.pipe(ctx.res);
        res.on('end', () => {
          settled = true;
          resolve();
        });
        res.on('error', (err) => fail(new AppError(502, 'UPSTREAM_FAILED', 'The core service closed the connection'), err));
      });
      upstream.setTimeout(options.timeoutMs, () => fail(new AppError(504, 'UPSTREAM_TIMEOUT', 'The core service did not answer in time; try again shortly')));
      upstream.on('error', (err) => {
        const timedOut = Date.now() - started >= options.timeoutMs - 5;
        fail(timedOut ? new AppError(504, 'UPSTREAM_TIMEOUT', 'The core service did not answer in time; try again shortly') : new AppError(502, 'UPSTREAM_FAILED', 'The core service is not reachable; try again shortly'), err);
      });
      ctx.res.once('close', () => {
        // The caller hung up: the call to the core is dropped, and that is not a failure of the core.
        if (!ctx.res.writableFinished && !settled) {
          settled = true;
          upstream.destroy();
        }
        resolve();
      });
      // Count a streamed body (no Content-Length) as it passes, without holding it.
      let seen = 0;
      ctx.req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > options.bodyLimitBytes) {
          ctx.req.unpipe(upstream);
          fail(new AppError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large'));
        }
      });
      ctx.req.pipe(upstream);
    });
  };
  return { middleware, close: () => agent.destroy() };
}
