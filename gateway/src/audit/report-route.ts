/**
 * `GET /gateway/audit/report`: the migration audit for administrators, as
 * JSON, CSV or HTML. The gateway keeps no accounts of its own, so it asks the
 * core who the caller is (`GET /whoami` with the caller's own credentials)
 * and serves only holders of the Authorization admin role.
 */
import type { Context, Middleware } from 'koa';
import { roleId } from '../../../kernel/index.ts';
import { AppError, ForbiddenError, readArchiveState, UnauthenticatedError, ValidationError } from '../../../kernel/index.ts';
import type { ErrorDetail, Store } from '../../../kernel/index.ts';
import type { CoreClient, Credentials } from '../core-client.ts';
import type { Entry } from '../mapping/types.ts';
import type { ReleaseCalendar } from '../releases.ts';
import type { EndOf } from '../legacy/serve-until.ts';
import type { AuditRecorder } from './recorder.ts';
import { ReportBuilder } from './report.ts';
import type { Report } from './report.ts';
import { renderCsv } from './report-csv.ts';
import { HTML_HEADERS, renderHtml } from './report-html.ts';
import { describeProblems, readParams } from './report-params.ts';
import { eachStoredCall } from './report-store.ts';
import { forwardingHeaders } from '../proxy.ts';

export const REPORT_PATH = '/gateway/audit/report';
/** Built-in administrators hold it through the `admins` group. */
export const ADMIN_ROLE = roleId('Authorization', 'admin');
const PARAMETERS = new Set(['format', 'target', 'since', 'until', 'token']);

export interface ReportRouteDeps {
  readonly entries: readonly Entry[];
  readonly calendar: ReleaseCalendar;
  /** The platform release the gateway is configured for. */
  readonly release: string;
  /** Until when the gateway serves each operation, so "what breaks" follows its own 410s. */
  readonly endOf?: EndOf;
  readonly store: Store;
  readonly audit: AuditRecorder;
  readonly client: CoreClient;
  readonly now?: () => number;
}

function credentialsOf(ctx: Context): Credentials {
  const token = new URLSearchParams(ctx.querystring).get('token') ?? undefined;
  return { authorization: ctx.get('authorization') || undefined, cookie: ctx.get('cookie') || undefined, token };
}

/**
 * Asks the core who the caller is, and refuses (401, 403 with `refusal`)
 * unless it holds one of the `accepted` role ids. Shared with the gateway's
 * metrics route.
 */
export async function requireRole(ctx: Context, client: CoreClient, accepted: readonly string[], refusal: string): Promise<void> {
  const credentials = credentialsOf(ctx);
  if (!credentials.authorization && !credentials.cookie && !credentials.token) throw new UnauthenticatedError();
  let answer: { status: number; body: unknown };
  try {
    // The core counts a failed Basic login against the client, not the gateway (docs/auth.md, "Forwarded addresses").
    const forwarded = { client: ctx.ip, proto: ctx.protocol === 'https' ? 'https' : 'http', host: ctx.host, viaProxy: false } as const;
    answer = await client.forCaller(credentials, forwardingHeaders(ctx.req.socket.remoteAddress ?? '', ctx.req.headers, forwarded))({ method: 'GET', path: '/whoami', query: {}, body: undefined });
  } catch (err) {
    throw new AppError(502, 'UPSTREAM_FAILED', 'The core service could not say who the caller is', [], { cause: err });
  }
  if (answer.status === 401) throw new UnauthenticatedError('The credentials are not valid');
  // A locked-out caller stays locked out here too; other answers mean the core is not well.
  if (answer.status === 429) throw new AppError(429, 'TOO_MANY_REQUESTS', 'Too many failed attempts; try again later');
  if (answer.status !== 200) throw new AppError(502, 'UPSTREAM_FAILED', `The core service answered ${answer.status} when asked who the caller is`);
  const roles = (answer.body as { roles?: unknown } | null)?.roles;
  if (!Array.isArray(roles) || !accepted.some((role) => roles.includes(role))) throw new ForbiddenError(refusal);
}

function rawQuery(ctx: Context): Record<string, string> {
  const problems: ErrorDetail[] = [];
  const seen: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(ctx.querystring)) {
    if (!PARAMETERS.has(name)) problems.push({ parameter: name, message: 'is not a parameter of the report (format, target, since, until)' });
    else if (name in seen) problems.push({ parameter: name, message: 'must be given once' });
    else seen[name] = value;
  }
  if (problems.length > 0) throw new ValidationError(`Invalid report parameters: ${describeProblems(problems)}`, problems);
  return seen;
}

function send(ctx: Context, report: Report, format: string): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set(HTML_HEADERS);
  if (format === 'csv') {
    ctx.type = 'text/csv; charset=utf-8; header=present';
    ctx.set('Content-Disposition', `attachment; filename="legacy-audit-${report.release}-to-${report.target}.csv"`);
    ctx.body = renderCsv(report);
  } else if (format === 'html') {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderHtml(report);
  } else {
    ctx.type = 'application/json';
    ctx.body = JSON.stringify(report);
  }
}

export function auditReportRoute(deps: ReportRouteDeps): Middleware {
  const now = deps.now ?? Date.now;
  return async function auditReport(ctx, next) {
    if (ctx.path !== REPORT_PATH) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      throw new AppError(405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${REPORT_PATH}; use GET`);
    }
    // Who asks comes before what is asked: strangers learn nothing, not even which parameters exist.
    await requireRole(ctx, deps.client, [ADMIN_ROLE], 'The migration audit report is for administrators (the Authorization admin role)');
    const raw = rawQuery(ctx);
    ctx.vary('Accept');
    const negotiated = ctx.accepts('json', 'html') === 'html' ? 'html' : 'json';
    const result = readParams(raw, { formats: ['json', 'csv', 'html'], defaultFormat: negotiated, calendar: deps.calendar, release: deps.release });
    if (!result.ok) throw new ValidationError(`Invalid report parameters: ${describeProblems(result.problems)}`, result.problems);
    const { format, target, since, until } = result.params;
    // Calls answered a moment ago may still sit in the recorder's buffer.
    await deps.audit.flush();
    const builder = new ReportBuilder({ entries: deps.entries, release: deps.release, target, since, until, calendar: deps.calendar, ...(deps.endOf ? { endOf: deps.endOf } : {}) });
    await eachStoredCall(deps.store, { since, until }, (call) => builder.add(call));
    send(ctx, builder.finish(now(), (await readArchiveState(deps.store, 'audit'))?.archivedBefore ?? null), format);
  };
}
