/**
 * Serves the legacy operations of the mapping table: the front door's stage
 * (front-door/door.ts) that answers a request naming one, on node:http, since
 * a rewritten call is the gateway's busiest path and Koa's dispatch cost it
 * more than the rewrite itself (BENCHMARKS.md). The door has already given the
 * request its id, its access-log line and the headers every answer carries.
 *
 * Each answer carries `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and, when
 * there is one, a `Link` to the successor as a concrete URL for this call
 * (mapping/successor.ts). What it answers is decided in answer.ts, by the
 * pure rules of policy.ts; a refusal goes out the legacy way, a JSON string,
 * with its `X-Error-Code` (docs/errors.md). Every call is recorded for the
 * migration audit before it is answered.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { AppError, crossSiteRefusal, errorHeaders, writeJson } from '../../../kernel/index.ts';
import type { Logger } from '../../../kernel/index.ts';
import type { AuditRecorder, Outcome } from '../audit/recorder.ts';
import { CallerChecks } from '../audit/callers.ts';
import type { CallerCheck } from '../audit/callers.ts';
import type { CoreClient, Credentials } from '../core-client.ts';
import type { Exchange, Stage } from '../front-door/chain.ts';
import { readLegacyBody } from './body.ts';
import type { BodyResult } from './body.ts';
import { legacyMatcher } from './match.ts';
import { RawJson } from '../mapping/pluck.ts';
import { successorLink, successorTemplate } from '../mapping/successor.ts';
import type { CallCore } from '../mapping/run.ts';
import { forwardingHeaders } from '../proxy.ts';
import type { Entry } from '../mapping/types.ts';
import type { ReleaseCalendar } from '../releases.ts';
import { answer, legacyBody, legacyRefusal } from './answer.ts';
import type { Answer, Call, Runner } from './answer.ts';
import { credentialsOf, deprecationValues, isGone, servingOf } from './policy.ts';
import type { Brownout, Serving } from './policy.ts';
import { SCHEDULE } from './serve-until.ts';
import type { EndOf, ServeEnd } from './serve-until.ts';

export interface LegacyDeps extends Runner {
  readonly entries: readonly Entry[];
  readonly calendar: ReleaseCalendar;
  readonly release: string;
  readonly brownouts: readonly Brownout[];
  /** Until when each operation is served (serve-until.ts); the schedule's removal releases by default. */
  readonly endOf?: EndOf;
  readonly client: CoreClient;
  readonly audit: AuditRecorder;
  /** `http.bodyLimit` as the config loader read it once, in bytes, as the pass-through and the core take it. */
  readonly bodyLimitBytes: number;
  readonly now?: () => number;
  /** Told of every answered call (metrics, the contract test's recording); none by default. */
  readonly observe?: LegacyObserver | null;
}

/** One answered legacy call; `body` is the value sent (a RawJson holds the bytes copied from the core's answer). */
export type LegacyObserver = (entry: Entry, method: string | undefined, status: number, outcome: Outcome, seconds: number, body: unknown) => void;

/** Shared by every call without a query string; never written to. */
const NO_QUERY: URLSearchParams = new URLSearchParams();

/** What the dispatcher knows of an entry before any call, read once at start. */
interface Prepared {
  readonly entry: Entry;
  /** The `Deprecation` and `Sunset` values, the same on every answer. */
  readonly deprecation: string;
  readonly sunset: string;
  readonly end: ServeEnd;
  readonly serving: Serving;
  readonly replacement: string | null;
  /** The successor's URL template (mapping/successor.ts); null when there is no concrete one. */
  readonly successor: string | null;
}

/** What every call of one stage shares. */
interface Shared {
  readonly deps: LegacyDeps;
  readonly now: () => number;
  readonly callers: CallerChecks;
}

/**
 * One legacy call from match to answer. A class rather than closures made per
 * call: this is the gateway's busiest path and every allocation on it shows.
 */
class LegacyCall implements Call {
  private readonly started: number;
  readonly entry: Entry;
  readonly end: ServeEnd;
  readonly gone: boolean;
  readonly callCore: CallCore;
  private readonly credentials: Credentials;
  caller: CallerCheck = { kind: 'unknown' };
  /** The legacy body once read; a successor whose ids travel in it has no Link before. */
  private body: unknown = undefined;

  constructor(private readonly shared: Shared, private readonly prepared: Prepared, readonly params: Record<string, string>, readonly query: URLSearchParams, private readonly x: Exchange) {
    this.started = shared.now();
    this.entry = prepared.entry;
    this.end = prepared.end;
    this.gone = isGone(prepared.serving, this.started);
    this.credentials = credentialsOf(x.req.headers, query);
    // The core counts failed logins of the client, not of the gateway: it is told who that is as the pass-through tells it.
    // The calls made in the legacy request's place are the gateway's own, sent only once crossSite() let the
    // legacy request through: a page cannot set Sec-Fetch-Site, so the core takes the gateway's word for it.
    this.callCore = shared.deps.client.forCaller(this.credentials, { ...forwardingHeaders(x.peer(), x.req.headers, x.forwarded()), 'x-request-id': x.requestId, 'sec-fetch-site': 'same-origin' });
  }

  crossSite(): string | null {
    const { authorization, token, cookie } = this.credentials;
    // The cookie is the credential only when nothing the core reads first is sent (core/src/auth/credentials.ts).
    if (authorization !== undefined || token !== undefined || cookie === undefined || !/(?:^|;)\s*token=/.test(cookie)) return null;
    const { req } = this.x;
    const forwarded = this.x.forwarded();
    const one = (name: string): string | undefined => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
    // No legacy operation declares form bodies: the platform's clients are scripts, which send Bearer, Basic or ?token=.
    return crossSiteRefusal({ method: req.method ?? 'GET', origin: `${forwarded.proto}://${forwarded.host}`, headers: { origin: one('origin'), 'sec-fetch-site': one('sec-fetch-site'), 'content-type': one('content-type') }, formsDeclared: false });
  }

  log(): Logger {
    return this.x.log();
  }

  async readBody(): Promise<BodyResult> {
    const read = await readLegacyBody(this.x.req, this.shared.deps.bodyLimitBytes);
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
      result = { outcome: 'failed', error: legacyRefusal(err, this) };
    }
    const { entry } = this;
    const userAgent = this.x.req.headers['user-agent'];
    // The answer goes out only once the record is journaled: a kill from then on keeps the record.
    deps.audit.record({
      time: this.started,
      operation: entry.operation,
      entry: entry.id,
      source: entry.source,
      client: { account: this.caller.kind === 'known' ? this.caller.name : null, clientId: null, address: this.x.forwarded().client, userAgent: typeof userAgent === 'string' ? userAgent : '' },
      outcome: result.outcome,
      status: 'error' in result ? result.error.status : result.status,
      latencyMs: now() - this.started,
      deprecated: entry.deprecated,
      removed: entry.removed,
      replacement: this.prepared.replacement,
    }, () => this.send(result));
  }

  /** Runs after the record is journaled, from the recorder's turn: it answers whatever happens. */
  private send(result: Answer): void {
    const { req, res } = this.x;
    const { deprecation, sunset } = this.prepared;
    let status: number;
    let body: unknown;
    try {
      // One literal of values, not a spread of the entry's headers: built by spreading, the headers of each answer
      // were promoted to V8's old generation and brought two or three full collections per 8 s at 1,300 calls/s,
      // the legacy call's p99 going from about 6 to 12 ms (--trace-gc-nvp; BENCHMARKS.md, the legacy call's tail).
      let headers: OutgoingHttpHeaders;
      if ('error' in result) {
        ({ status } = result.error);
        body = legacyBody(result.error);
        headers = errorHeaders(result.error);
        headers['Deprecation'] = deprecation;
        headers['Sunset'] = sunset;
      } else {
        ({ status, body } = result);
        headers = { Deprecation: deprecation, Sunset: sunset };
        if (result.warning !== null) headers['Warning'] = result.warning;
      }
      const link = this.link();
      if (link !== null) headers['Link'] = link;
      // An answer copied out of the core's JSON goes out as those bytes (mapping/pluck.ts); any other is serialised.
      writeJson(res, status, headers, body instanceof RawJson ? body.bytes : (JSON.stringify(body) ?? 'null'), req.method);
    } catch (err) {
      this.crashed(err);
      return;
    }
    this.shared.deps.observe?.(this.entry, req.method, status, result.outcome, this.x.elapsedSeconds(), body);
  }

  /** Nothing in run() should throw; if something does, the caller still gets an answer and the process lives on. */
  private crashed(err: unknown): void {
    this.log().error('legacy dispatch failed', { entry: this.entry.id, error: err instanceof Error ? err.stack : String(err) });
    const internal = new AppError('INTERNAL', 'Internal error');
    writeJson(this.x.res, internal.status, errorHeaders(internal), JSON.stringify(legacyBody(internal)), this.x.req.method);
  }
}

/**
 * The front door's stage that serves a legacy operation, or passes on (having
 * touched nothing) a request that names none.
 */
export function legacyStage(deps: LegacyDeps): Stage {
  const shared: Shared = { deps, now: deps.now ?? Date.now, callers: new CallerChecks() };
  const match = legacyMatcher(deps.entries);
  const endOf = deps.endOf ?? SCHEDULE;
  const prepare = (entry: Entry, end: ServeEnd): Prepared => ({
    entry,
    ...deprecationValues(entry, deps.calendar, end),
    end,
    serving: servingOf(entry, deps.release, deps.brownouts, end),
    replacement: entry.replacement ? `${entry.replacement.method} ${entry.replacement.path}` : null,
    successor: successorTemplate(entry),
  });
  const prepared = new Map<Entry, Prepared>(deps.entries.map((entry) => [entry, prepare(entry, endOf(entry))]));

  return (x, next) => {
    const found = match(x.req.method ?? 'GET', x.pathname);
    if (!found) {
      next(x);
      return;
    }
    new LegacyCall(shared, prepared.get(found.entry)!, found.params, x.search === '' ? NO_QUERY : new URLSearchParams(x.search), x).start();
  };
}
