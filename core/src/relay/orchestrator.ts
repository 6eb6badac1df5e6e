/**
 * HTTP to an adapter's orchestrator, with got: credentials, timeout, TLS
 * options and retries taken from the adapter. Failures to get any answer
 * become the relay's 502/504 errors naming the adapter; every HTTP answer,
 * error statuses included, is handed back for the relay to judge.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { RequestError, TimeoutError } from 'got';
import type { Got, Method } from 'got';
import { displayUrl } from '../adapters/registry.ts';
import type { Adapter } from '../adapters/registry.ts';
import { AppError } from '../../../kernel/index.ts';

export interface OutgoingRequest {
  readonly method: Method;
  readonly url: URL;
  readonly accept: string;
  /** Set only when a body is sent. */
  readonly contentType: string | null;
  readonly body: string | null;
}

export interface OrchestratorAnswer {
  readonly status: number;
  /** Parsed JSON for JSON media types, text otherwise; undefined when the answer had no body. */
  readonly data: unknown;
}

export interface ProbeResult {
  readonly reachable: boolean;
  readonly latencyMs: number;
  readonly error: string | null;
}

/** Methods whose repetition has the same effect as one call; only these are retried. */
const IDEMPOTENT: Method[] = ['GET', 'PUT', 'DELETE'];
/** Failures to connect or send: the request cannot have been acted on, or repeating it is harmless (idempotent methods). */
const RETRY_ERROR_CODES = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EHOSTUNREACH', 'EAI_AGAIN'];
/** Statuses that say "try again" rather than "no". */
const RETRY_STATUSES = [502, 503, 504];

function authorization(adapter: Adapter): string | null {
  const c = adapter.credentials;
  if (c === null) return null;
  if ('token' in c) return `Bearer ${c.token}`;
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}

/** `tls.ca` is PEM text (it may come from the vault); when given it replaces the default trusted roots, as Node's `ca` does. */
function tlsOptions(adapter: Adapter): { rejectUnauthorized: boolean; certificateAuthority?: string } {
  return adapter.tls.ca ? { rejectUnauthorized: adapter.tls.rejectUnauthorized, certificateAuthority: adapter.tls.ca } : { rejectUnauthorized: adapter.tls.rejectUnauthorized };
}

function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /[/+]json\s*(;|$)/i.test(contentType);
}

function describe(err: RequestError): string {
  return err.message.includes(err.code) ? err.message : `${err.code}: ${err.message}`;
}

export class OrchestratorClient {
  private readonly http: Got;

  constructor() {
    // Kept-alive connections: a relay call then costs no TCP (or TLS) handshake.
    const agent = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
    this.http = got.extend({
      agent,
      throwHttpErrors: false,
      // A redirect could lead away from the adapter's base with its credentials.
      followRedirect: false,
      responseType: 'text',
      headers: { 'user-agent': 'iap-compat-relay' },
    });
  }

  async send(adapter: Adapter, request: OutgoingRequest): Promise<OrchestratorAnswer> {
    const headers: Record<string, string> = { accept: request.accept };
    const auth = authorization(adapter);
    if (auth !== null) headers['authorization'] = auth;
    if (request.contentType !== null) headers['content-type'] = request.contentType;
    let response;
    try {
      response = await this.http(request.url, {
        method: request.method,
        headers,
        ...(request.body === null ? {} : { body: request.body }),
        timeout: { request: adapter.timeoutMs },
        https: tlsOptions(adapter),
        retry: {
          limit: 2,
          methods: IDEMPOTENT,
          statusCodes: RETRY_STATUSES,
          // A timed-out attempt is not retried (ETIMEDOUT is left out), so a call waits about timeoutMs at most.
          errorCodes: RETRY_ERROR_CODES,
          // got's default backoff starts at a second; a relay call should fail or succeed quickly.
          calculateDelay: ({ computedValue, attemptCount }) => (computedValue === 0 ? 0 : 50 * attemptCount),
        },
      });
    } catch (err) {
      throw this.failure(adapter, err);
    }
    const status = response.statusCode;
    const text = response.body;
    if (text.length === 0) return { status, data: undefined };
    if (!isJsonType(response.headers['content-type'])) return { status, data: text };
    try {
      return { status, data: JSON.parse(text) as unknown };
    } catch {
      // An error answer keeps its status with the text as it came; a success that cannot be read is the orchestrator's fault.
      if (status >= 400) return { status, data: text };
      throw new AppError(502, 'UPSTREAM_FAILED', `Adapter "${adapter.name}" answered ${status} with a body that is not valid JSON`, [{ parameter: 'adapterId', message: 'answer is not valid JSON' }]);
    }
  }

  /** Whether the base URL answers at all (any status counts): a HEAD, no credentials, no retries. */
  async probe(adapter: Adapter, timeoutMs: number): Promise<ProbeResult> {
    const started = performance.now();
    try {
      // Without user information: got would send it as credentials, and the probe sends none.
      await this.http(displayUrl(adapter.baseUrl), {
        method: 'HEAD',
        timeout: { request: timeoutMs },
        retry: { limit: 0 },
        https: tlsOptions(adapter),
      });
      return { reachable: true, latencyMs: Math.round(performance.now() - started), error: null };
    } catch (err) {
      const message = err instanceof TimeoutError ? `no answer within ${timeoutMs} ms` : err instanceof RequestError ? describe(err) : String(err);
      return { reachable: false, latencyMs: Math.round(performance.now() - started), error: message };
    }
  }

  private failure(adapter: Adapter, err: unknown): unknown {
    const detail = [{ parameter: 'adapterId', message: adapter.name }];
    if (err instanceof TimeoutError) {
      return new AppError(504, 'UPSTREAM_TIMEOUT', `Adapter "${adapter.name}" did not answer within ${adapter.timeoutMs} ms`, detail, { cause: err });
    }
    if (err instanceof RequestError) {
      return new AppError(502, 'UPSTREAM_FAILED', `Adapter "${adapter.name}" could not be reached (${describe(err)})`, detail, { cause: err });
    }
    return err;
  }
}
