/**
 * Passes a request through to the upstream (the core, or a real platform,
 * under CORE_URL's base path) unchanged, streaming both ways, on the
 * upstream's pool of keep-alive connections (upstream.ts) (without one, every call opens a socket and
 * latency climbs to about a second under load; BENCHMARKS.md).
 * Hop-by-hop headers are dropped in both directions and X-Forwarded-* set. A
 * body over the limit is refused (413) without being buffered. When the core
 * cannot be reached the caller gets a quick 502, when it is too slow a 504,
 * both in the surface's own shape (kernel/http/raw-answer.ts). It is the front
 * door's last stage (front-door/door.ts), which gave the request its id, its
 * access-log line and the headers every answer carries.
 *
 * Written on node:http rather than http-proxy: measured on this machine the
 * library cost 43% of a bare pass-through's throughput (BENCHMARKS.md), and
 * the few things it did for us fit in this file.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { coreRequestOptions } from './request-options.ts';
import type { Upstream } from './upstream.ts';
import { AppError, secondsSince, writeError } from '../../kernel/index.ts';
import type { Forwarded, ObserveRequest, ResponseShape } from '../../kernel/index.ts';
import type { Exchange } from './front-door/chain.ts';

export interface ProxyOptions {
  /** The upstream's one connection (upstream.ts), shared with the rewritten calls. */
  readonly upstream: Upstream;
  readonly timeoutMs: number;
  /** Largest request body passed through, in bytes. */
  readonly bodyLimitBytes: number;
}

/** What the gateway appends to a request for the core, the standard way: its peer at the end of X-Forwarded-For. */
export function forwardingHeaders(peer: string, incoming: IncomingHttpHeaders, forwarded: Forwarded): { 'x-forwarded-for': string; 'x-forwarded-proto': string; 'x-forwarded-host': string } {
  const chain = incoming['x-forwarded-for'];
  const earlier = Array.isArray(chain) ? chain.join(', ') : chain;
  return { 'x-forwarded-for': earlier ? `${earlier}, ${peer}` : peer, 'x-forwarded-proto': forwarded.proto, 'x-forwarded-host': forwarded.host };
}

const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'upgrade', 'transfer-encoding'];

export function stripHopByHop(headers: IncomingHttpHeaders | Record<string, string>): void {
  // Read before the loop deletes it; on every call, so no array is made for the usual answer that lists none.
  const connection = headers['connection'];
  for (const name of HOP_BY_HOP) delete headers[name];
  if (connection === undefined) return;
  for (const listed of String(connection).split(',')) {
    const name = listed.trim().toLowerCase();
    if (name !== '') delete headers[name];
  }
}

/** The shape errors take where the core's route would answer them: its token endpoint speaks OAuth (RFC 6749). */
function shapeOf(pathname: string): ResponseShape {
  return /^\/oauth\/token\/?$/.test(pathname) ? 'oauth' : pathname.startsWith('/operations-manager') ? 'operations-manager' : 'plain';
}

/** What the metrics see of the pass-through; its `route` label is always `passthrough` (bounded). */
export interface PassThroughObserver {
  readonly request: ObserveRequest;
  upstreamError(kind: 'unreachable' | 'timeout' | 'closed'): void;
}

export interface PassThrough {
  /** Passes the request to the core and streams the answer back. */
  handle(x: Exchange): void;
  close(): void;
}

/**
 * Served on node:http in front of the gateway's Koa app, as legacy calls are:
 * through Koa's context and middleware the pass-through spent about a tenth
 * more CPU and its p99 at 1,500 req/s was 3 ms above a bare proxy's; outside
 * it, none (BENCHMARKS.md). The request's id goes to the core with the call.
 */
export function passThrough(options: ProxyOptions, observer: PassThroughObserver | null = null): PassThrough {
  const connection = options.upstream;
  const host = connection.target.host;

  function handle(x: Exchange): void {
    const { req, res, pathname, requestId } = x;
    const shape = shapeOf(pathname);
    const address = x.peer();
    const forwarded = x.forwarded();
    if (observer) {
      const started = process.hrtime.bigint();
      res.once('finish', () => observer.request(req.method, 'passthrough', res.statusCode, secondsSince(started)));
    }
    const answerError = (appError: AppError): void => writeError(res, shape, appError, req.method);
    if (Number(req.headers['content-length'] || 0) > options.bodyLimitBytes) {
      answerError(new AppError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${options.bodyLimitBytes} bytes`));
      return;
    }
    let path: string;
    try {
      path = connection.path(req.url ?? '/');
    } catch (err) {
      answerError(err as AppError);
      return;
    }
    const headers: OutgoingHttpHeaders = { ...req.headers, ...forwardingHeaders(address, req.headers, forwarded) };
    stripHopByHop(headers as IncomingHttpHeaders);
    headers['host'] = host;
    headers['x-request-id'] = requestId;
    if (req.headers['transfer-encoding'] && !req.headers['content-length']) headers['transfer-encoding'] = 'chunked';
    const started = Date.now();
    let settled = false;
    const fail = (appError: AppError, upstreamError?: Error): void => {
      if (settled) return;
      settled = true;
      if (observer && appError.status !== 413) observer.upstreamError(appError.status === 504 ? 'timeout' : res.headersSent ? 'closed' : 'unreachable');
      upstream.destroy();
      x.log().warn('pass-through failed', { error: upstreamError?.message ?? appError.message, status: appError.status });
      answerError(appError);
    };
    const upstream = connection.request(coreRequestOptions(connection, req.method ?? 'GET', path, headers), (answer) => {
      const responseHeaders = { ...answer.headers };
      stripHopByHop(responseHeaders);
      res.writeHead(answer.statusCode ?? 502, responseHeaders);
      answer.pipe(res);
      answer.on('end', () => {
        settled = true;
      });
      answer.on('error', (err) => fail(new AppError(502, 'UPSTREAM_FAILED', 'The core service closed the connection'), err));
    });
    upstream.setTimeout(options.timeoutMs, () => fail(new AppError(504, 'UPSTREAM_TIMEOUT', 'The core service did not answer in time; try again shortly')));
    upstream.on('error', (err) => {
      const timedOut = Date.now() - started >= options.timeoutMs - 5;
      fail(timedOut ? new AppError(504, 'UPSTREAM_TIMEOUT', 'The core service did not answer in time; try again shortly') : new AppError(502, 'UPSTREAM_FAILED', 'The core service is not reachable; try again shortly'), err);
    });
    res.once('close', () => {
      // The caller hung up: the call to the core is dropped, and that is not a failure of the core.
      if (!res.writableFinished && !settled) {
        settled = true;
        upstream.destroy();
      }
    });
    // Count a streamed body as it passes, without holding it. A declared length was checked above and Node's
    // parser holds the body to it; without Transfer-Encoding or a length there is no body (RFC 9112 section 6.3).
    if (req.headers['transfer-encoding'] !== undefined) {
      let seen = 0;
      req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > options.bodyLimitBytes) {
          req.unpipe(upstream);
          fail(new AppError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large'));
        }
      });
    }
    req.pipe(upstream);
  }

  return { handle, close: () => connection.close() };
}
