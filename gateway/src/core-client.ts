/**
 * Calls from the gateway to the core for rewritten legacy operations, over
 * one keep-alive pool, with the legacy caller's own credentials, so the core
 * decides what the caller may do exactly as for a direct call. On node:http:
 * a rewritten call is only JSON in and out, and got's per-request machinery
 * cost more than the rest of the rewrite (BENCHMARKS.md). A core that cannot
 * be reached, or does not answer in time, fails the call as UPSTREAM_FAILED
 * or UPSTREAM_TIMEOUT with the legacy status, 500.
 */
import { Agent, request } from 'node:http';
import type { OutgoingHttpHeaders } from 'node:http';
import { coreRequestOptions } from './request-options.ts';
import { AppError } from '../../kernel/index.ts';
import type { CallCore, CoreAnswer } from './mapping/run.ts';

export interface Credentials {
  readonly authorization?: string;
  readonly cookie?: string;
  /** The `token` query parameter of the legacy request. */
  readonly token?: string;
}

/**
 * X-Forwarded-For, -Proto and -Host of the legacy request (proxy.ts), so the core counts the real client;
 * and Sec-Fetch-Site once the gateway has applied the cross-site rule to the legacy request itself.
 */
export type Forwarding = Readonly<Record<'x-forwarded-for' | 'x-forwarded-proto' | 'x-forwarded-host', string> & { 'sec-fetch-site'?: 'same-origin' }>;

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

/** The query string of a call, `?` included, or nothing: its own keys only, never inherited ones. */
function queryString(query: Readonly<Record<string, string>>): string {
  let qs = '';
  for (const key of Object.keys(query)) qs += `${qs ? '&' : '?'}${encodeURIComponent(key)}=${encodeValue(query[key]!)}`;
  return qs;
}

/**
 * The legacy `token` parameter, as the bearer header the core reads first.
 * A token that a header cannot carry as it is (anything but visible ASCII)
 * goes percent-encoded, which the core decodes (core/src/auth/credentials.ts).
 */
export function bearerOf(token: string): string {
  return `Bearer ${/^[\x21-\x24\x26-\x7e]+$/.test(token) ? token : encodeURIComponent(token)}`;
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

export function createCoreClient(baseUrl: string, timeoutMs: number): CoreClient {
  const target = new URL(baseUrl);
  // The agent's timeout is each socket's idle limit, the same limit req.setTimeout would set, without a timer made per call.
  const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: timeoutMs });
  return {
    forCaller(credentials, forwarding) {
      const base: OutgoingHttpHeaders = { accept: 'application/json', ...forwarding };
      // Credentials travel in headers only: the rewritten call's query holds what the mapping
      // put there and nothing else. A bearer or Basic header wins over the legacy `token`
      // parameter, which wins over the cookie, as on the core itself.
      if (credentials.authorization) base['authorization'] = credentials.authorization;
      else if (credentials.token !== undefined) base['authorization'] = bearerOf(credentials.token);
      if (credentials.cookie) base['cookie'] = credentials.cookie;
      return (call): Promise<CoreAnswer> =>
        new Promise((resolve, reject) => {
          const payload = call.body === undefined || call.method === 'GET' ? null : Buffer.from(JSON.stringify(call.body));
          const headers = payload ? { ...base, 'content-type': 'application/json', 'content-length': payload.length } : base;
          const req = request(coreRequestOptions(target, call.method, call.path + queryString(call.query), headers, agent), (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve(new Reply(res.statusCode ?? 502, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), res.headers['content-type'], res.headers['warning'], res.headers['retry-after'], errorCodeOf(res.statusCode, res.headers['x-error-code']))));
            res.on('error', () => reject(new AppError(500, 'UPSTREAM_FAILED', 'The core service closed the connection')));
          });
          req.on('timeout', () => req.destroy(new AppError(500, 'UPSTREAM_TIMEOUT', 'The core service did not answer in time')));
          req.on('error', (err) => reject(err instanceof AppError ? err : new AppError(500, 'UPSTREAM_FAILED', 'The core service is not reachable; try again shortly')));
          req.end(payload ?? undefined);
        });
    },
    close: () => agent.destroy(),
  };
}
