/**
 * Serves the legacy operations of the mapping table, straight on node:http
 * in front of the gateway's Koa app: a rewritten call is the gateway's
 * busiest path, and Koa's dispatch cost it more than the rewrite itself
 * (BENCHMARKS.md). Each answer carries `Deprecation` (RFC 9745), `Sunset`
 * (RFC 8594) and, when there is one, a `Link` to the successor as a concrete
 * URL for this call (mapping/successor.ts). At or after
 * its removal release (or inside a brownout window) an operation answers 410
 * with a plain string naming its replacement. Failures answer the legacy
 * way: a plain JSON string, status 500. Every call is recorded for the
 * migration audit. Requests carry an `X-Request-Id` and get an access-log
 * line like every other answer of the gateway.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { crossSiteRefusal, forwardedOf, requestIdOf } from '../../../kernel/index.ts';
import type { Forwarded, Logger, TrustedProxies } from '../../../kernel/index.ts';
import type { AuditRecorder, Outcome } from '../audit/recorder.ts';
import { CallerChecks } from '../audit/callers.ts';
import type { CallerCheck } from '../audit/callers.ts';
import type { CoreClient, Credentials } from '../core-client.ts';
import { readLegacyBody } from './body.ts';
import type { BodyResult } from './body.ts';
import { legacyMatcher } from './match.ts';
import { RawJson } from '../mapping/pluck.ts';
import { successorLink, successorTemplate } from '../mapping/successor.ts';
import { LegacyFailure, runEntry, throttled } from '../mapping/run.ts';
import { forwardingHeaders } from '../proxy.ts';
import type { CallCore, Hatch } from '../mapping/run.ts';
import type { Entry } from '../mapping/types.ts';
import { compareReleases } from '../releases.ts';
import type { ReleaseCalendar } from '../releases.ts';

export interface Brownout {
  /** Entry ids or operation names, or `*` for every deprecated operation. */
  readonly operations: readonly string[];
  readonly from: string;
  readonly until: string;
}

export interface LegacyDeps {
  readonly entries: readonly Entry[];
  readonly calendar: ReleaseCalendar;
  readonly release: string;
  readonly brownouts: readonly Brownout[];
  readonly client: CoreClient;
  readonly audit: AuditRecorder;
  readonly hatches: ReadonlyMap<string, Hatch>;
  /** The core's largest search page (`search.maxLimit`, the same setting the core reads). */
  readonly searchMaxLimit: number;
  readonly logger: Logger;
  readonly bodyLimit: string;
  /** Peers whose X-Forwarded-* the gateway believes (`http.trustedProxies`); none when absent. */
  readonly trusted?: TrustedProxies;
  readonly now?: () => number;
  /** Told of every answered call (metrics, the contract test's recording); none by default. */
  readonly observe?: LegacyObserver | null;
}

/** One answered legacy call; `body` is the value sent (a RawJson holds the bytes copied from the core's answer). */
export type LegacyObserver = (entry: Entry, method: string | undefined, status: number, outcome: Outcome, seconds: number, body: unknown) => void;

/** The `Deprecation` and `Sunset` values of an entry, the same on every answer; `Link` depends on the call. */
export function deprecationValues(entry: Entry, calendar: ReleaseCalendar): { readonly deprecation: string; readonly sunset: string } {
  return {
    deprecation: `@${Math.floor(calendar.dateOf(entry.deprecated).getTime() / 1000)}`,
    sunset: calendar.dateOf(entry.removed).toUTCString(),
  };
}

export function goneMessage(entry: Entry): string {
  const replacement = entry.replacement ? `use ${entry.replacement.method} ${entry.replacement.path} instead` : 'it has no replacement';
  const route = `${entry.legacy.method} ${entry.legacy.path}`;
  // Platform-core operations are named by their route already.
  const what = entry.operation === route ? route : `${entry.operation} (${route})`;
  return `${what} was removed in release ${entry.removed}; ${replacement}`;
}

interface Answer {
  readonly status: number;
  readonly outcome: Outcome;
  /** The legacy body: a value written as JSON. */
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}

/** Shared by every call without a query string; never written to. */
const NO_QUERY: URLSearchParams = new URLSearchParams();

function credentialsOf(req: IncomingMessage, query: URLSearchParams): Credentials {
  const header = (name: string): string | undefined => {
    const value = req.headers[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return { authorization: header('authorization'), cookie: header('cookie'), token: query.get('token') ?? undefined };
}

/** One legacy call, as the dispatcher read it. */
interface Call {
  readonly entry: Entry;
  /** Removed at the configured release, or inside a brownout window. */
  readonly gone: boolean;
  readonly caller: CallerCheck;
  readonly params: Record<string, string>;
  readonly query: URLSearchParams;
  readonly callCore: CallCore;
  /** Why a write authenticated by the cookie is refused as cross-site (kernel/http/cross-site.ts), or null. */
  crossSite(): string | null;
  /** Reads the body; asked only once the call is known to run. */
  readBody(): Promise<BodyResult>;
  log(): Logger;
}

/** Answers one legacy call: 410 once removed, 401 to callers the core does not know, else the rewrite. */
async function answer(call: Call, deps: LegacyDeps): Promise<Answer> {
  const { entry, caller } = call;
  // Removal is public knowledge; anything else is only for callers the core knows.
  if (call.gone) return { status: 410, outcome: 'refused', body: goneMessage(entry), headers: { 'Cache-Control': 'no-store' } };
  if (caller.kind === 'refused') return { status: 401, outcome: 'failed', body: caller.message };
  const crossSite = call.crossSite();
  if (crossSite !== null) return { status: 403, outcome: 'failed', body: crossSite, headers: { 'X-Error-Code': 'FORBIDDEN' } };
  const read = await call.readBody();
  // Refused before any call to the core: over the limit 413, otherwise the legacy error form.
  if ('error' in read) return { status: read.error.status === 413 ? 413 : 500, outcome: 'failed', body: read.error.message, headers: { 'X-Error-Code': read.error.code } };
  try {
    const query: Record<string, string> = {};
    for (const [k, v] of call.query) if (k !== 'token') query[k] = v;
    // The core's warnings (a start accepted despite mistyped variables, before 2021.2) reach the legacy caller too.
    const warnings: string[] = [];
    const callCore: CallCore = async (c) => {
      const reply = await call.callCore(c);
      // A lockout ends the call here, whichever step or hatch asked (mapping/run.ts).
      const lockedOut = throttled(reply);
      if (lockedOut) throw lockedOut;
      if (reply.warning) warnings.push(reply.warning);
      return reply;
    };
    const result = await runEntry(entry, { params: call.params, query, body: read.body }, callCore, deps.hatches, deps.searchMaxLimit);
    return { status: result.status, outcome: 'rewritten', body: result.body, ...(warnings.length > 0 ? { headers: { Warning: warnings.join(', ') } } : {}) };
  } catch (err) {
    // encodeURIComponent refuses lone surrogates, which JSON bodies may carry: the caller's mistake, named.
    if (err instanceof URIError) return { status: 500, outcome: 'failed', body: 'The request holds text that is not valid Unicode (an unpaired surrogate) where the call it becomes puts it in a URL' };
    if (!(err instanceof LegacyFailure)) call.log().error('legacy operation failed', { entry: entry.id, error: String(err) });
    // Legacy errors keep the legacy form, a plain JSON string with status 500 (docs/decisions.md D18),
    // except missing credentials and missing roles, which stay 401 and 403 (item 7), and a lockout,
    // which stays 429 with the core's Retry-After so a client knows to wait, not to retry (docs/auth.md).
    const coreStatus = err instanceof LegacyFailure ? err.coreStatus : null;
    if (err instanceof LegacyFailure && coreStatus === 429) {
      return { status: 429, outcome: 'failed', body: err.message, headers: { 'X-Error-Code': 'TOO_MANY_REQUESTS', ...(err.retryAfter ? { 'Retry-After': err.retryAfter } : {}) } };
    }
    return { status: coreStatus === 401 || coreStatus === 403 ? coreStatus : 500, outcome: 'failed', body: err instanceof LegacyFailure ? err.message : 'Internal error' };
  }
}

/** What the dispatcher knows of an entry before any call, read once at start. */
interface Prepared {
  readonly entry: Entry;
  /** The `Deprecation` and `Sunset` values, the same on every answer. */
  readonly deprecation: string;
  readonly sunset: string;
  /** Removed at the configured release. */
  readonly removed: boolean;
  /** Its brownout windows, as [from, until) in epoch ms. */
  readonly windows: ReadonlyArray<readonly [number, number]>;
  readonly replacement: string | null;
  /** The successor's URL template (mapping/successor.ts); null when there is no concrete one. */
  readonly successor: string | null;
}

/** What every call of one handler shares. */
interface Shared {
  readonly deps: LegacyDeps;
  readonly now: () => number;
  readonly callers: CallerChecks;
  readonly accessLog: boolean;
  readonly trusted: TrustedProxies;
}

/**
 * One legacy call from match to answer. A class rather than closures made per
 * call: this is the gateway's busiest path and every allocation on it shows.
 */
class LegacyCall implements Call {
  private readonly startedNs = process.hrtime.bigint();
  private readonly started: number;
  private readonly requestId: string;
  private child: Logger | null = null;
  readonly entry: Entry;
  readonly gone: boolean;
  readonly callCore: CallCore;
  private readonly credentials: Credentials;
  private readonly forwarded: Forwarded;
  caller: CallerCheck = { kind: 'unknown' };
  /** The legacy body once read; a successor whose ids travel in it has no Link before. */
  private body: unknown = undefined;

  constructor(private readonly shared: Shared, private readonly prepared: Prepared, readonly params: Record<string, string>, readonly query: URLSearchParams, private readonly req: IncomingMessage, private readonly res: ServerResponse, private readonly pathname: string) {
    this.started = shared.now();
    this.requestId = requestIdOf(req.headers['x-request-id']);
    this.entry = prepared.entry;
    this.gone = prepared.removed || prepared.windows.some(([from, until]) => from <= this.started && this.started < until);
    this.credentials = credentialsOf(req, query);
    const peer = req.socket.remoteAddress ?? '';
    this.forwarded = forwardedOf(peer, Boolean((req.socket as { encrypted?: boolean }).encrypted), req.headers, shared.trusted);
    // The core counts failed logins of the client, not of the gateway: it is told who that is as the pass-through tells it.
    // The calls made in the legacy request's place are the gateway's own, sent only once crossSite() let the
    // legacy request through: a page cannot set Sec-Fetch-Site, so the core takes the gateway's word for it.
    this.callCore = shared.deps.client.forCaller(this.credentials, { ...forwardingHeaders(peer, req.headers, this.forwarded), 'sec-fetch-site': 'same-origin' });
  }

  crossSite(): string | null {
    const { authorization, token, cookie } = this.credentials;
    // The cookie is the credential only when nothing the core reads first is sent (core/src/auth/credentials.ts).
    if (authorization !== undefined || token !== undefined || cookie === undefined || !/(?:^|;)\s*token=/.test(cookie)) return null;
    const headers = this.req.headers;
    const one = (name: string): string | undefined => (typeof headers[name] === 'string' ? (headers[name] as string) : undefined);
    // No legacy operation declares form bodies: the platform's clients are scripts, which send Bearer, Basic or ?token=.
    return crossSiteRefusal({ method: this.req.method ?? 'GET', origin: `${this.forwarded.proto}://${this.forwarded.host}`, headers: { origin: one('origin'), 'sec-fetch-site': one('sec-fetch-site'), 'content-type': one('content-type') }, formsDeclared: false });
  }

  log(): Logger {
    return (this.child ??= this.shared.deps.logger.child({ requestId: this.requestId }));
  }

  async readBody(): Promise<BodyResult> {
    const read = await readLegacyBody(this.req, this.shared.deps.bodyLimit);
    if ('body' in read) this.body = read.body;
    return read;
  }

  /** The `Link: <concrete successor URL>; rel="successor-version"` value for this call, when there is one. */
  private link(): string | null {
    const { successor } = this.prepared;
    if (successor === null) return null;
    const query = Object.fromEntries([...this.query].filter(([k]) => k !== 'token'));
    return successorLink(successor, { params: this.params, query, body: this.body });
  }

  start(): void {
    this.run().catch((err: unknown) => this.crashed(err));
  }

  private async run(): Promise<void> {
    const { callers, deps, now } = this.shared;
    // Asked even of removed operations: the audit names who still calls them.
    this.caller = callers.remembered(this.credentials) ?? (await callers.check(this.credentials, this.callCore));
    let result: Answer;
    try {
      result = await answer(this, deps);
    } catch (err) {
      this.log().error('legacy operation failed', { entry: this.entry.id, error: String(err) });
      result = { status: 500, outcome: 'failed', body: 'Internal error' };
    }
    const { entry, req } = this;
    const userAgent = req.headers['user-agent'];
    // The answer goes out only once the record is journaled: a kill from then on keeps the record.
    deps.audit.record({
      time: this.started,
      operation: entry.operation,
      entry: entry.id,
      source: entry.source,
      client: { account: this.caller.kind === 'known' ? this.caller.name : null, clientId: null, address: this.forwarded.client, userAgent: typeof userAgent === 'string' ? userAgent : '' },
      outcome: result.outcome,
      status: result.status,
      latencyMs: now() - this.started,
      deprecated: entry.deprecated,
      removed: entry.removed,
      replacement: this.prepared.replacement,
    }, () => this.send(result));
  }

  /** Runs after the record is journaled, from the recorder's turn: it answers whatever happens. */
  private send(result: Answer): void {
    const { req, res } = this;
    try {
      // An answer copied out of the core's JSON goes out as those bytes (mapping/pluck.ts); any other is serialised.
      const payload = result.body instanceof RawJson ? result.body.bytes : (JSON.stringify(result.body) ?? 'null');
      if (!res.headersSent && !res.destroyed) {
        // One literal of values, not a spread of the entry's headers: built by spreading, the headers of each answer
        // were promoted to V8's old generation and brought two or three full collections per 8 s at 1,300 calls/s,
        // the legacy call's p99 going from about 6 to 12 ms (--trace-gc-nvp; BENCHMARKS.md, the legacy call's tail).
        const headers: OutgoingHttpHeaders = { Deprecation: this.prepared.deprecation, Sunset: this.prepared.sunset, 'X-Request-Id': this.requestId, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length };
        const link = this.link();
        if (link !== null) headers['Link'] = link;
        if (result.headers) for (const name of Object.keys(result.headers)) headers[name] = result.headers[name];
        res.writeHead(result.status, headers);
        res.end(req.method === 'HEAD' ? undefined : payload);
      }
    } catch (err) {
      this.crashed(err);
      return;
    }
    this.shared.deps.observe?.(this.entry, req.method, result.status, result.outcome, Number(process.hrtime.bigint() - this.startedNs) / 1e9, result.body);
    if (this.shared.accessLog) this.log().http('request', { method: req.method, path: this.pathname, status: result.status, ms: Math.round(Number(process.hrtime.bigint() - this.startedNs) / 1e4) / 100, client: this.forwarded.client });
  }

  /** Nothing in run() should throw; if something does, the caller still gets an answer and the process lives on. */
  private crashed(err: unknown): void {
    this.log().error('legacy dispatch failed', { entry: this.entry.id, error: err instanceof Error ? err.stack : String(err) });
    if (!this.res.headersSent && !this.res.destroyed) {
      this.res.writeHead(500, { 'X-Request-Id': this.requestId, 'Content-Type': 'application/json; charset=utf-8' });
      this.res.end(JSON.stringify('Internal error'));
    }
  }
}

/**
 * A request handler that serves a legacy operation and answers true, or
 * answers false (having touched nothing) when the request names none. It is
 * given the request's path without its query, which the gateway reads once.
 */
export function legacyHandler(deps: LegacyDeps): (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean {
  const shared: Shared = { deps, now: deps.now ?? Date.now, callers: new CallerChecks(), accessLog: deps.logger.isLevelEnabled('http'), trusted: deps.trusted ?? (() => false) };
  const match = legacyMatcher(deps.entries);
  const prepared = new Map<Entry, Prepared>(deps.entries.map((entry) => [entry, {
    entry,
    ...deprecationValues(entry, deps.calendar),
    removed: compareReleases(deps.release, entry.removed) >= 0,
    windows: deps.brownouts.filter((b) => b.operations.includes('*') || b.operations.includes(entry.id) || b.operations.includes(entry.operation)).map((b) => [Date.parse(b.from), Date.parse(b.until)] as const),
    replacement: entry.replacement ? `${entry.replacement.method} ${entry.replacement.path}` : null,
    successor: successorTemplate(entry),
  }]));

  return (req, res, pathname) => {
    const found = match(req.method ?? 'GET', pathname);
    if (!found) return false;
    const search = (req.url ?? '').slice(pathname.length + 1);
    new LegacyCall(shared, prepared.get(found.entry)!, found.params, search === '' ? NO_QUERY : new URLSearchParams(search), req, res, pathname).start();
    return true;
  };
}
