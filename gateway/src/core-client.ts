/**
 * Calls from the gateway to its upstream (the core, or a real platform) for
 * rewritten legacy operations and `whoami`, over the upstream's one
 * keep-alive pool (upstream.ts), with the legacy caller's own credentials in
 * the form the caller sent them, so the upstream decides what the caller may
 * do exactly as for a direct call. On node:http:
 * a rewritten call is only JSON in and out, and got's per-request machinery
 * cost more than the rest of the rewrite (BENCHMARKS.md). A core that cannot
 * be reached, or does not answer in time, fails the call as UPSTREAM_FAILED
 * or UPSTREAM_TIMEOUT with the legacy status, 500.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { coreRequestOptions } from './request-options.ts';
import type { Upstream } from './upstream.ts';
import { AppError } from '../../kernel/index.ts';
import { LegacyFailure } from './mapping/run.ts';
import type { CallCore, CoreAnswer } from './mapping/run.ts';

export interface Credentials {
  readonly authorization?: string;
  readonly cookie?: string;
  /** The `token` query parameter of the legacy request. */
  readonly token?: string;
}

/**
 * X-Forwarded-For, -Proto and -Host of the legacy request (proxy.ts), so the core counts the real client;
 * X-Request-Id, the gateway's id of that request, so the core's log lines of the calls made in its place carry
 * the id the caller was answered with (as a passed-through call's do); and Sec-Fetch-Site once the gateway has
 * applied the cross-site rule to the legacy request itself.
 */
export type Forwarding = Readonly<Record<'x-forwarded-for' | 'x-forwarded-proto' | 'x-forwarded-host', string> & { 'x-request-id'?: string; 'sec-fetch-site'?: 'same-origin' }>;

export interface CoreClient {
  forCaller(credentials: Credentials, forwarding?: Forwarding): CallCore;
  close(): void;
}

/**
 * Encodes a query value keeping its commas: in `in[...]` lists they separate
 * options, while a comma inside an option arrives already written as `%2C`
 * (the `|join` filter), which must reach the core as `%2C` too.
 */
export function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/%2C/g, ',').replace(/%252C/g, '%2C');
}

/** The query string of a call, `?` included, or nothing: its own keys only, never inherited ones, and never `token`. */
function queryString(query: Readonly<Record<string, string>>): string {
  let qs = '';
  for (const key of Object.keys(query)) if (key !== 'token') qs += `${qs ? '&' : '?'}${encodeURIComponent(key)}=${encodeValue(query[key]!)}`;
  return qs;
}

/**
 * The caller's `token` query parameter, to follow the call's own query. The
 * platform takes a login token only as `?token=` or the `token` cookie, and
 * Bearer only for OAuth client tokens, so it is never turned into a header
 * (docs/real-platform.md, "Credentials").
 */
function tokenParameter(token: string | undefined): string {
  return token === undefined ? '' : `token=${encodeURIComponent(token)}`;
}

const UNREAD = Symbol('unread');

/** The core's X-Error-Code, read only on an error answer: a success leaves the reply's field unset. */
function errorCodeOf(status: number | undefined, header: string | string[] | undefined): string | undefined {
  return status !== undefined && status >= 400 && typeof header === 'string' ? header : undefined;
}

/**
 * The core's answer. Its body is parsed only when something reads it: an
 * answer copied out of the JSON as bytes (mapping/pluck.ts) never is.
 */
class Reply implements CoreAnswer {
  private parsed: unknown = UNREAD;
  readonly json: Buffer | undefined;

  constructor(readonly status: number, private readonly bytes: Buffer, contentType: string | undefined, readonly warning?: string, readonly retryAfter?: string, readonly code?: string) {
    this.json = contentType !== undefined && contentType.startsWith('application/json') ? bytes : undefined;
  }

  /** JSON when it parses, else the text as it came. */
  get body(): unknown {
    if (this.parsed === UNREAD) {
      const text = this.bytes.toString('utf8');
      try {
        this.parsed = text.length > 0 ? JSON.parse(text) : null;
      } catch {
        this.parsed = text;
      }
    }
    return this.parsed;
  }
}

/** A call that has read more than it may hold: what it read is dropped, and the caller is told the way out. */
function overBudget(maxBytes: number): LegacyFailure {
  const mib = Math.round(maxBytes / 1024 / 1024);
  return new LegacyFailure(`This call would read more than ${mib} MiB from the upstream; the gateway holds at most ${mib} MiB for one call (gateway.legacyMaxMb). Page with skip and limit, or narrow the query`);
}

/**
 * Calls over `upstream`; `close()` ends the upstream's sockets, which it shares with the pass-through.
 * `maxBytes` bounds what the calls of one `forCaller` (one legacy request) read in all: an answer that would
 * pass it is abandoned mid-stream, its socket closed, rather than held.
 */
export function createCoreClient(upstream: Upstream, maxBytes = Number.POSITIVE_INFINITY): CoreClient {
  return {
    forCaller(credentials, forwarding) {
      let read = 0;
      // Each form the caller used, and only those, as it used them: the upstream applies its own
      // precedence as for a direct call. The object is this caller's alone, so no call of another
      // caller can carry these credentials.
      const base: OutgoingHttpHeaders = { accept: 'application/json', ...forwarding };
      if (credentials.authorization) base['authorization'] = credentials.authorization;
      if (credentials.cookie) base['cookie'] = credentials.cookie;
      const token = tokenParameter(credentials.token);
      return (call): Promise<CoreAnswer> =>
        new Promise((resolve, reject) => {
          // A mapping's own `token` key is dropped: the only token upstream is the caller's.
          const query = queryString(call.query);
          const full = token === '' ? query : `${query}${query ? '&' : '?'}${token}`;
          let path: string;
          try {
            path = upstream.path(call.path + full);
          } catch (err) {
            reject(err);
            return;
          }
          const payload = call.body === undefined || call.method === 'GET' ? null : Buffer.from(JSON.stringify(call.body));
          const headers = payload ? { ...base, 'content-type': 'application/json', 'content-length': payload.length } : base;
          const req = upstream.request(coreRequestOptions(upstream, call.method, path, headers), (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => {
              read += c.length;
              if (read <= maxBytes) chunks.push(c);
              else if (!res.destroyed) {
                chunks.length = 0;
                res.destroy();
                reject(overBudget(maxBytes));
              }
            });
            res.on('end', () => resolve(new Reply(res.statusCode ?? 502, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), res.headers['content-type'], res.headers['warning'], res.headers['retry-after'], errorCodeOf(res.statusCode, res.headers['x-error-code']))));
            res.on('error', () => reject(new AppError(500, 'UPSTREAM_FAILED', 'The core service closed the connection')));
          });
          req.on('timeout', () => req.destroy(new AppError(500, 'UPSTREAM_TIMEOUT', 'The core service did not answer in time')));
          req.on('error', (err) => reject(err instanceof AppError ? err : new AppError(500, 'UPSTREAM_FAILED', 'The core service is not reachable; try again shortly')));
          req.end(payload ?? undefined);
        });
    },
    close: () => upstream.close(),
  };
}
