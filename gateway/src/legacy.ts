/**
 * Serves the legacy operations of the mapping table. Each answer carries
 * `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and, when there is one, a
 * `Link` to the successor. At or after its removal release (or inside a
 * brownout window) an operation answers 410 with a plain string naming its
 * replacement. Failures answer the legacy way: a plain JSON string, status
 * 500. Every call is recorded for the migration audit.
 */
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { AppError } from '../../core/src/errors.ts';
import { bodyDepthError } from '../../core/src/http/body-depth.ts';
import { bodyError } from '../../core/src/http/error-handler.ts';
import type { RequestState } from '../../core/src/http/request-context.ts';
import type { Logger } from '../../core/src/logger.ts';
import type { AuditRecorder, Outcome } from './audit/recorder.ts';
import { CallerChecks } from './audit/callers.ts';
import type { CoreClient, Credentials } from './core-client.ts';
import { LegacyFailure, runEntry } from './mapping/run.ts';
import type { Hatch } from './mapping/run.ts';
import type { Entry } from './mapping/types.ts';
import { compareReleases } from './releases.ts';
import type { ReleaseCalendar } from './releases.ts';

interface BodyState {
  bodyError?: AppError;
}

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

function credentialsOf(ctx: Context): Credentials {
  const token = new URLSearchParams(ctx.querystring).get('token') ?? undefined;
  return { authorization: ctx.get('authorization') || undefined, cookie: ctx.get('cookie') || undefined, token };
}

export function legacyRouter(deps: LegacyDeps): Router {
  const router = new Router();
  const now = deps.now ?? Date.now;
  const callers = new CallerChecks();
  // A body that cannot be read is kept as the reason, so the entry answers it rather than running on an empty body.
  const parse = bodyParser({
    enableTypes: ['json', 'form'],
    jsonLimit: deps.bodyLimit,
    formLimit: deps.bodyLimit,
    onError: (err, ctx) => {
      (ctx.state as BodyState).bodyError = bodyError(err);
    },
  });

  const brownedOut = (entry: Entry, at: number): boolean =>
    deps.brownouts.some((b) => (b.operations.includes('*') || b.operations.includes(entry.id) || b.operations.includes(entry.operation)) && Date.parse(b.from) <= at && at < Date.parse(b.until));

  for (const entry of deps.entries) {
    const headers = deprecationHeaders(entry, deps.calendar);
    const removed = compareReleases(deps.release, entry.removed) >= 0;
    const method = entry.legacy.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](entry.legacy.path, parse, async (ctx: Context) => {
      const started = now();
      const credentials = credentialsOf(ctx);
      const callCore = deps.client.forCaller(credentials);
      ctx.set(headers);
      let outcome: Outcome;
      // Asked even of removed operations: the audit names who still calls them.
      const caller = await callers.check(credentials, callCore);
      const bodyState = ctx.state as BodyState;
      bodyState.bodyError ??= bodyDepthError((ctx.request as { body?: unknown }).body) ?? undefined;
      // Removal is public knowledge; anything else is only for callers the core knows.
      if (removed || brownedOut(entry, started)) {
        outcome = 'refused';
        ctx.status = 410;
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'application/json';
        ctx.body = JSON.stringify(goneMessage(entry));
      } else if (caller.kind === 'refused') {
        outcome = 'failed';
        ctx.status = 401;
        ctx.type = 'application/json';
        ctx.body = JSON.stringify(caller.message);
      } else if (bodyState.bodyError) {
        // Refused before any call to the core: over the limit 413, otherwise the legacy error form.
        outcome = 'failed';
        ctx.status = bodyState.bodyError.status === 413 ? 413 : 500;
        ctx.set('X-Error-Code', bodyState.bodyError.code);
        ctx.type = 'application/json';
        ctx.body = JSON.stringify(bodyState.bodyError.message);
      } else {
        try {
          const query: Record<string, string> = {};
          for (const [k, v] of new URLSearchParams(ctx.querystring)) if (k !== 'token') query[k] = v;
          const answer = await runEntry(entry, { params: { ...ctx.params }, query, body: (ctx.request as { body?: unknown }).body ?? {} }, callCore, deps.hatches);
          outcome = 'rewritten';
          ctx.status = answer.status;
          ctx.type = 'application/json';
          ctx.body = JSON.stringify(answer.body);
        } catch (err) {
          outcome = 'failed';
          const message = err instanceof LegacyFailure ? err.message : 'Internal error';
          if (!(err instanceof LegacyFailure)) (ctx.state as RequestState).logger.error('legacy operation failed', { entry: entry.id, error: String(err) });
          // Legacy errors keep the legacy form, a plain JSON string with status 500 (decisions.md item 18),
          // except missing credentials and missing roles, which stay 401 and 403 (item 7).
          const coreStatus = err instanceof LegacyFailure ? err.coreStatus : null;
          ctx.status = coreStatus === 401 || coreStatus === 403 ? coreStatus : 500;
          ctx.type = 'application/json';
          ctx.body = JSON.stringify(message);
        }
      }
      const status = ctx.status;
      const latencyMs = now() - started;
      const address = ctx.ip;
      const userAgent = ctx.get('user-agent');
      deps.audit.record({
        time: started,
        operation: entry.operation,
        entry: entry.id,
        source: entry.source,
        client: { account: caller.kind === 'known' ? caller.name : null, clientId: null, address, userAgent },
        outcome,
        status,
        latencyMs,
        deprecated: entry.deprecated,
        removed: entry.removed,
        replacement: entry.replacement ? `${entry.replacement.method} ${entry.replacement.path}` : null,
      });
    });
  }
  return router;
}
