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
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { coreRequestOptions } from './request-options.ts';
import { endToEnd, leavingOut, SET_UPSTREAM } from './pass-headers.ts';
import { WRITTEN_ON_EVERY_HEAD } from './front-door/response.ts';
import type { Upstream } from './upstream.ts';
import { AppError, writeError } from '../../kernel/index.ts';
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
    const { req, res } = x;
    const incoming = req.headers;
    const call = new UpstreamCall(x, observer, options.timeoutMs);
    // One listener for both ends of the answer: counted when it went out whole (refusals here too), the call dropped when the caller left.
    res.on('close', () => call.closed());
    if (Number(incoming['content-length'] || 0) > options.bodyLimitBytes) {
      answerError(x, new AppError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${options.bodyLimitBytes} bytes`));
      return;
    }
    let path: string;
    try {
      path = connection.path(req.url ?? '/');
    } catch (err) {
      answerError(x, err as AppError);
      return;
    }
    const forwarded = forwardingHeaders(x.peer(), incoming, x.forwarded());
    const headers = endToEnd(incoming, SET_UPSTREAM);
    headers.push('host', host, 'x-request-id', x.requestId, 'x-forwarded-for', forwarded['x-forwarded-for'], 'x-forwarded-proto', forwarded['x-forwarded-proto'], 'x-forwarded-host', forwarded['x-forwarded-host']);
    if (incoming['transfer-encoding'] !== undefined && incoming['content-length'] === undefined) headers.push('transfer-encoding', 'chunked');
    const upstream = connection.request(coreRequestOptions(connection, req.method ?? 'GET', path, headers), (answer) => call.answered(answer));
    call.upstream = upstream;
    upstream.on('timeout', () => call.fail(new AppError(504, 'UPSTREAM_TIMEOUT', TIMED_OUT)));
    upstream.on('error', (err) => call.failed(err));
    // Count a streamed body as it passes, without holding it. A declared length was checked above and Node's
    // parser holds the body to it; without Transfer-Encoding or a length there is no body (RFC 9112 section 6.3).
    if (incoming['transfer-encoding'] !== undefined) {
      let seen = 0;
      req.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > options.bodyLimitBytes) {
          req.unpipe(upstream);
          call.fail(new AppError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large'));
        }
      });
    }
    req.pipe(upstream);
  }

  return { handle, close: () => connection.close() };
}

const TIMED_OUT = 'The core service did not answer in time; try again shortly';

/** The names the caller's answer gets from the gateway's response class (front-door/response.ts), never from the core. */
const TO_CALLER = leavingOut(WRITTEN_ON_EVERY_HEAD);

/** An error answered in the shape of the route the core would have answered with. */
function answerError(x: Exchange, appError: AppError): void {
  writeError(x.res, shapeOf(x.pathname), appError, x.req.method);
}

/**
 * One call upstream on behalf of one request. A class rather than closures
 * made per request: each named closure costs its own property definition
 * when the code runs under a loader that keeps function names.
 */
class UpstreamCall {
  upstream: ClientRequest | null = null;
  /** The core's answer, once its head came; `complete` once all of it came. */
  private answer: IncomingMessage | null = null;
  private settled = false;

  constructor(private readonly x: Exchange, private readonly observer: PassThroughObserver | null, private readonly timeoutMs: number) {}

  answered(answer: IncomingMessage): void {
    const res = this.x.res;
    this.answer = answer;
    res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers, TO_CALLER));
    answer.pipe(res);
    answer.on('error', (err) => this.fail(new AppError(502, 'UPSTREAM_FAILED', 'The core service closed the connection'), err));
  }

  /** The call failed before its answer ended: a timeout when it took the whole time allowed, else unreachable. */
  failed(err: Error): void {
    const timedOut = this.x.elapsedMs() >= this.timeoutMs - 5;
    this.fail(timedOut ? new AppError(504, 'UPSTREAM_TIMEOUT', TIMED_OUT) : new AppError(502, 'UPSTREAM_FAILED', 'The core service is not reachable; try again shortly'), err);
  }

  fail(appError: AppError, upstreamError?: Error): void {
    // Once the core's whole answer has come, a late timeout or error of its socket changes nothing for the caller.
    if (this.settled || this.answer?.complete === true) return;
    this.settled = true;
    const res = this.x.res;
    if (this.observer && appError.status !== 413) this.observer.upstreamError(appError.status === 504 ? 'timeout' : res.headersSent ? 'closed' : 'unreachable');
    this.upstream?.destroy();
    this.x.log().warn('pass-through failed', { error: upstreamError?.message ?? appError.message, status: appError.status });
    answerError(this.x, appError);
  }

  /**
   * The caller's answer is closed: counted when it went out whole; otherwise the caller hung up, and the call
   * to the core is dropped unless it has already come whole (that is not a failure of the core).
   */
  closed(): void {
    const { req, res } = this.x;
    if (res.writableFinished) {
      this.observer?.request(req.method, 'passthrough', res.statusCode, this.x.elapsedSeconds());
    } else if (!this.settled && this.answer?.complete !== true) {
      this.settled = true;
      this.upstream?.destroy();
    }
  }
}
