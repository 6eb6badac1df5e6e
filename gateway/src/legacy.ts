/**
 * Serves the legacy operations of the mapping table, straight on node:http
 * in front of the gateway's Koa app: a rewritten call is the gateway's
 * busiest path, and Koa's dispatch cost it more than the rewrite itself
 * (BENCHMARKS.md). Each answer carries `Deprecation` (RFC 9745), `Sunset`
 * (RFC 8594) and, when there is one, a `Link` to the successor. At or after
 * its removal release (or inside a brownout window) an operation answers 410
 * with a plain string naming its replacement. Failures answer the legacy
 * way: a plain JSON string, status 500. Every call is recorded for the
 * migration audit. Requests carry an `X-Request-Id` and get an access-log
 * line like every other answer of the gateway.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIdOf } from '../../core/src/http/request-context.ts';
import type { Logger } from '../../core/src/logger.ts';
import type { AuditRecorder, Outcome } from './audit/recorder.ts';
import { CallerChecks } from './audit/callers.ts';
import type { CallerCheck } from './audit/callers.ts';
import type { CoreClient, Credentials } from './core-client.ts';
import { readLegacyBody } from './legacy/body.ts';
import type { BodyResult } from './legacy/body.ts';
import { legacyMatcher } from './legacy/match.ts';
import { LegacyFailure, runEntry } from './mapping/run.ts';
import type { CallCore, Hatch } from './mapping/run.ts';
import type { Entry } from './mapping/types.ts';
import { compareReleases } from './releases.ts';
import type { ReleaseCalendar } from './releases.ts';

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
  readonly logger: Logger;
  readonly bodyLimit: string;
  readonly now?: () => number;
}

/** The headers of an entry, the same on every answer. */
export function deprecationHeaders(entry: Entry, calendar: ReleaseCalendar): Record<string, string> {
  const headers: Record<string, string> = {
    Deprecation: `@${Math.floor(calendar.dateOf(entry.deprecated).getTime() / 1000)}`,
    Sunset: calendar.dateOf(entry.removed).toUTCString(),
  };
  if (entry.replacement) headers['Link'] = `<${entry.replacement.path}>; rel="successor-version"`;
  return headers;
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
  /** Reads the body; asked only once the call is known to run. */
  readBody(): Promise<BodyResult>;
  log(): Logger;
}

/** Answers one legacy call: 410 once removed, 401 to callers the core does not know, else the rewrite. */
async function answer(call: Call, hatches: LegacyDeps['hatches']): Promise<Answer> {
  const { entry, caller } = call;
  // Removal is public knowledge; anything else is only for callers the core knows.
  if (call.gone) return { status: 410, outcome: 'refused', body: goneMessage(entry), headers: { 'Cache-Control': 'no-store' } };
  if (caller.kind === 'refused') return { status: 401, outcome: 'failed', body: caller.message };
  const read = await call.readBody();
  // Refused before any call to the core: over the limit 413, otherwise the legacy error form.
  if ('error' in read) return { status: read.error.status === 413 ? 413 : 500, outcome: 'failed', body: read.error.message, headers: { 'X-Error-Code': read.error.code } };
  try {
    const query: Record<string, string> = {};
    for (const [k, v] of call.query) if (k !== 'token') query[k] = v;
    const result = await runEntry(entry, { params: call.params, query, body: read.body }, call.callCore, hatches);
    return { status: result.status, outcome: 'rewritten', body: result.body };
  } catch (err) {
    // encodeURIComponent refuses lone surrogates, which JSON bodies may carry: the caller's mistake, named.
    if (err instanceof URIError) return { status: 500, outcome: 'failed', body: 'The request holds text that is not valid Unicode (an unpaired surrogate) where the call it becomes puts it in a URL' };
    if (!(err instanceof LegacyFailure)) call.log().error('legacy operation failed', { entry: entry.id, error: String(err) });
    // Legacy errors keep the legacy form, a plain JSON string with status 500 (decisions.md item 18),
    // except missing credentials and missing roles, which stay 401 and 403 (item 7).
    const coreStatus = err instanceof LegacyFailure ? err.coreStatus : null;
    return { status: coreStatus === 401 || coreStatus === 403 ? coreStatus : 500, outcome: 'failed', body: err instanceof LegacyFailure ? err.message : 'Internal error' };
  }
}

/**
 * A request handler that serves a legacy operation and answers true, or
 * answers false (having touched nothing) when the request names none.
 */
export function legacyHandler(deps: LegacyDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const now = deps.now ?? Date.now;
  const callers = new CallerChecks();
  const match = legacyMatcher(deps.entries);
  const accessLog = deps.logger.isLevelEnabled('http');
  const headersOf = new Map(deps.entries.map((e) => [e, deprecationHeaders(e, deps.calendar)]));
  const removed = new Set(deps.entries.filter((e) => compareReleases(deps.release, e.removed) >= 0));
  // Each entry's brownout windows, read once: the check runs on every call.
  const windows = new Map(deps.entries.map((e) => [e, deps.brownouts.filter((b) => b.operations.includes('*') || b.operations.includes(e.id) || b.operations.includes(e.operation)).map((b) => [Date.parse(b.from), Date.parse(b.until)] as const)]));
  const brownedOut = (entry: Entry, at: number): boolean => windows.get(entry)!.some(([from, until]) => from <= at && at < until);

  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const pathname = q === -1 ? url : url.slice(0, q);
    const found = match(req.method ?? 'GET', pathname);
    if (!found) return false;
    const { entry, params } = found;
    const startedNs = process.hrtime.bigint();
    const started = now();
    const requestId = requestIdOf(typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : undefined);
    let child: Logger | null = null;
    const log = (): Logger => (child ??= deps.logger.child({ requestId }));
    const query = q === -1 ? NO_QUERY : new URLSearchParams(url.slice(q + 1));
    const credentials = credentialsOf(req, query);
    const callCore = deps.client.forCaller(credentials);
    void (async () => {
      // Asked even of removed operations: the audit names who still calls them.
      const caller = callers.remembered(credentials) ?? (await callers.check(credentials, callCore));
      const call: Call = { entry, gone: removed.has(entry) || brownedOut(entry, started), caller, params, query, callCore, readBody: () => readLegacyBody(req, deps.bodyLimit), log };
      const result = await answer(call, deps.hatches).catch((err: unknown): Answer => {
        log().error('legacy operation failed', { entry: entry.id, error: String(err) });
        return { status: 500, outcome: 'failed', body: 'Internal error' };
      });
      deps.audit.record({
        time: started,
        operation: entry.operation,
        entry: entry.id,
        source: entry.source,
        client: { account: caller.kind === 'known' ? caller.name : null, clientId: null, address: req.socket.remoteAddress ?? '', userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : '' },
        outcome: result.outcome,
        status: result.status,
        latencyMs: now() - started,
        deprecated: entry.deprecated,
        removed: entry.removed,
        replacement: entry.replacement ? `${entry.replacement.method} ${entry.replacement.path}` : null,
      });
      // Only now, with the record journaled, does the answer go out: a kill from here on keeps the record.
      const text = JSON.stringify(result.body) ?? 'null';
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(result.status, { ...headersOf.get(entry), ...result.headers, 'X-Request-Id': requestId, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
        res.end(req.method === 'HEAD' ? undefined : text);
      }
      if (accessLog) log().http('request', { method: req.method, path: pathname, status: result.status, ms: Math.round(Number(process.hrtime.bigint() - startedNs) / 1e4) / 100 });
    })().catch((err: unknown) => {
      // Nothing above should throw; if something does, the caller still gets an answer and the process lives on.
      log().error('legacy dispatch failed', { entry: entry.id, error: err instanceof Error ? err.stack : String(err) });
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'X-Request-Id': requestId, 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify('Internal error'));
      }
    });
    return true;
  };
}
