/** The report as an aligned plain-text table, for a terminal. */
import type { Report, ReportRow } from './report.ts';
import { summarize } from './report.ts';

const MAX_CELL = 48;

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Client names and user agents are the caller's words: control characters
 * would let them drive the operator's terminal, so they are replaced, and
 * long values are cut so one odd agent cannot push the table apart.
 */
export function cell(value: string): string {
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > MAX_CELL ? `${clean.slice(0, MAX_CELL - 1)}…` : clean;
}

/** `2024-05-01 10:15Z`: minutes are enough to read a table. */
export function shortTime(iso: string | null): string {
  return iso === null ? '-' : `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`;
}

export function rangeText(report: Report): string {
  if (report.since === null && report.until === null) return 'every recorded call';
  if (report.until === null) return `calls since ${report.since}`;
  if (report.since === null) return `calls before ${report.until}`;
  return `calls from ${report.since} until ${report.until}`;
}

/** The line saying the store's history is cut short by the archive; null while nothing was archived. */
export function historyText(report: Report): string | null {
  return report.historyBegins === null ? null : `history begins ${report.historyBegins.slice(0, 10)}: earlier records were archived (npm run archive -- --restore brings them back)`;
}

export function summaryText(report: Report): string {
  const s = summarize(report);
  return `${plural(s.clients, 'client')} calling ${plural(s.operations, 'legacy operation')} (${plural(s.calls, 'call')}); `
    + `${plural(s.brokenNow, 'client')} already broken, ${plural(s.breaksAtTarget, 'client')} with calls that break at ${report.target}`;
}

const COLUMNS: ReadonlyArray<{ title: string; right?: boolean; value: (r: ReportRow) => string }> = [
  { title: 'STATUS', value: (r) => r.status },
  { title: 'CLIENT', value: (r) => cell(r.client) },
  { title: 'USER AGENT', value: (r) => cell(r.userAgents.join(', ') || '-') },
  { title: 'OPERATION', value: (r) => r.operation },
  { title: 'CALLS', right: true, value: (r) => String(r.calls) },
  { title: 'FIRST SEEN', value: (r) => shortTime(r.firstSeen) },
  { title: 'LAST SEEN', value: (r) => shortTime(r.lastSeen) },
  { title: 'REWRITTEN', right: true, value: (r) => String(r.outcomes.rewritten) },
  { title: 'REFUSED', right: true, value: (r) => String(r.outcomes.refused) },
  { title: 'FAILED', right: true, value: (r) => String(r.outcomes.failed) },
  { title: 'DEPRECATED', value: (r) => r.deprecated },
  { title: 'REMOVED', value: (r) => r.removed },
  { title: 'REPLACEMENT', value: (r) => r.replacement ?? '(none)' },
];

export function renderText(report: Report): string {
  const head = [
    `Legacy API migration audit: release ${report.release}, target ${report.target}`,
    `Generated ${report.generatedAt} from ${rangeText(report)}`,
    ...(historyText(report) === null ? [] : [`Note: ${historyText(report)}`]),
    summaryText(report),
    '',
  ];
  if (report.rows.length === 0) return `${[...head, 'No legacy calls recorded.'].join('\n')}\n`;
  const table = [COLUMNS.map((c) => c.title), ...report.rows.map((r) => COLUMNS.map((c) => c.value(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...table.map((line) => line[i]!.length)));
  const lines = table.map((line) => line.map((v, i) => (COLUMNS[i]!.right ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  ').trimEnd());
  return `${[...head, ...lines].join('\n')}\n`;
}
