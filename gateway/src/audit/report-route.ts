/**
 * `GET /gateway/audit/report`: the migration audit for administrators, as
 * JSON, CSV or HTML. The gateway keeps no accounts of its own, so it asks its
 * upstream who the caller is, with the caller's own credentials, and serves
 * only holders of the role named Authorization admin (caller-roles.ts).
 */
import type { Context, Middleware } from 'koa';
import { AppError, readArchiveState, ValidationError } from '../../../kernel/index.ts';
import type { ErrorDetail, Store } from '../../../kernel/index.ts';
import { requireRole } from '../caller-roles.ts';
import type { RoleName } from '../caller-roles.ts';
import type { CoreClient } from '../core-client.ts';
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

export const REPORT_PATH = '/gateway/audit/report';
/** Recognised by its name, whatever id the upstream gave it (caller-roles.ts); built-in administrators hold it through the `admins` group. */
export const ADMIN_ROLE: RoleName = { provenance: 'Authorization', name: 'admin' };
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
    await requireRole(ctx, deps.client, { roles: [ADMIN_ROLE], refusal: 'The migration audit report is for administrators (the Authorization admin role)' });
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
