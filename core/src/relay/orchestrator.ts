/**
 * HTTP to an adapter's orchestrator (on `node:http`, http-exchange.ts):
 * credentials, timeout, TLS options and retries taken from the adapter.
 * Failures to get any answer become the relay's 502/504 errors naming the
 * adapter; every HTTP answer, error statuses included, is handed back for the
 * relay to judge.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { displayUrl } from '../adapters/registry.ts';
import type { Adapter } from '../adapters/registry.ts';
import { AppError } from '../../../kernel/index.ts';
import { exchange, ExchangeTimeout, keptAlivePools } from './http-exchange.ts';
import type { Answered, Exchange, Pools } from './http-exchange.ts';
import type { RelayMethod } from './schemas.ts';

export interface OutgoingRequest {
  readonly method: RelayMethod;
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
const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'PUT', 'DELETE']);
/** Failures to connect or send: the request cannot have been acted on, or repeating it is harmless (idempotent methods). */
const RETRY_ERROR_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ENOTFOUND', 'ENETUNREACH', 'EHOSTUNREACH', 'EAI_AGAIN']);
/** Statuses that say "try again" rather than "no". */
const RETRY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);
const RETRIES = 2;
/** A relay call should fail or succeed quickly: 50 ms before the first retry, 100 before the second. */
const RETRY_DELAY_MS = 50;
const USER_AGENT = 'iap-compat-relay';

/** The Authorization header of each credentials object, made once: a configured adapter keeps its object for the process's life. */
const authorizations = new WeakMap<object, string>();

function authorization(adapter: Adapter): string | null {
  const c = adapter.credentials;
  if (c === null) return null;
  let header = authorizations.get(c);
  if (header === undefined) {
    header = 'token' in c ? `Bearer ${c.token}` : `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
    authorizations.set(c, header);
  }
  return header;
}

/** `tls.ca` is PEM text (it may come from the vault); when given it replaces the default trusted roots, as Node's `ca` does. */
function tlsOf(adapter: Adapter): Exchange['tls'] {
  return { rejectUnauthorized: adapter.tls.rejectUnauthorized, ca: adapter.tls.ca ?? null };
}

function codeOf(err: unknown): string | null {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : null;
}

function isJsonType(contentType: string | undefined): boolean {
  return contentType !== undefined && /[/+]json\s*(;|$)/i.test(contentType);
}

function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = codeOf(err);
  return code === null || message.includes(code) ? message : `${code}: ${message}`;
}

export class OrchestratorClient {
  private readonly pools: Pools = keptAlivePools();

  async send(adapter: Adapter, request: OutgoingRequest): Promise<OrchestratorAnswer> {
    const headers: Record<string, string> = { accept: request.accept, 'user-agent': USER_AGENT };
    const auth = authorization(adapter);
    if (auth !== null) headers['authorization'] = auth;
    if (request.contentType !== null) headers['content-type'] = request.contentType;
    const x: Exchange = { method: request.method, url: request.url, headers, body: request.body, timeoutMs: adapter.timeoutMs, tls: tlsOf(adapter) };
    const retried = IDEMPOTENT.has(request.method);
    let response: Answered;
    for (let attempt = 0; ; attempt += 1) {
      const last = !retried || attempt === RETRIES;
      try {
        response = await exchange(this.pools, x);
      } catch (err) {
        // A timed-out attempt is not retried, so a call waits about timeoutMs at most.
        if (last || err instanceof ExchangeTimeout || !RETRY_ERROR_CODES.has(codeOf(err) ?? '')) throw this.failure(adapter, err);
        await sleep(RETRY_DELAY_MS * (attempt + 1));
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) break;
      await sleep(RETRY_DELAY_MS * (attempt + 1));
    }
    const status = response.status;
    const text = response.text;
    if (text.length === 0) return { status, data: undefined };
    const contentType = response.headers['content-type'];
    if (!isJsonType(contentType)) return { status, data: text };
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
      // Without user information: the probe sends no credentials.
      await exchange(this.pools, { method: 'HEAD', url: new URL(displayUrl(adapter.baseUrl)), headers: { 'user-agent': USER_AGENT }, body: null, timeoutMs, tls: tlsOf(adapter) });
      return { reachable: true, latencyMs: Math.round(performance.now() - started), error: null };
    } catch (err) {
      return { reachable: false, latencyMs: Math.round(performance.now() - started), error: err instanceof ExchangeTimeout ? err.message : describe(err) };
    }
  }

  private failure(adapter: Adapter, err: unknown): unknown {
    const detail = [{ parameter: 'adapterId', message: adapter.name }];
    if (err instanceof ExchangeTimeout) {
      return new AppError(504, 'UPSTREAM_TIMEOUT', `Adapter "${adapter.name}" did not answer within ${adapter.timeoutMs} ms`, detail, { cause: err });
    }
    if (err instanceof Error) {
      return new AppError(502, 'UPSTREAM_FAILED', `Adapter "${adapter.name}" could not be reached (${describe(err)})`, detail, { cause: err });
    }
    return err;
  }
}
