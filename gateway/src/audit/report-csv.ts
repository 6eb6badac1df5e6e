/**
 * The report as CSV (RFC 4180): a header line, then one line per row, CRLF
 * line ends, fields quoted when they hold a comma, quote or line break.
 */
import type { Report, ReportRow } from './report.ts';

export const CSV_COLUMNS = [
  'status', 'client', 'client_kind', 'user_agents', 'operation', 'entry', 'legacy', 'calls', 'first_seen', 'last_seen',
  'rewritten', 'refused', 'failed', 'replacement', 'deprecated', 'removed', 'history_begins',
] as const;

/**
 * Client names and user agents come from callers. A spreadsheet would run a
 * cell starting with = + - @ (or tab/CR) as a formula, so such text gets a
 * leading apostrophe, as OWASP advises for CSV meant for spreadsheets.
 */
function defuse(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = defuse(value);
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * `history_begins` repeats on every row the day before which calls were
 * archived (empty while none were): a line of its own would break the
 * header-first shape spreadsheets and CSV readers expect.
 */
function cells(row: ReportRow, historyBegins: string | null): Array<string | number | null> {
  return [
    row.status, row.client, row.clientKind, row.userAgents.join('; '), row.operation, row.entry, row.legacy, row.calls, row.firstSeen, row.lastSeen,
    row.outcomes.rewritten, row.outcomes.refused, row.outcomes.failed, row.replacement, row.deprecated, row.removed, historyBegins?.slice(0, 10) ?? null,
  ];
}

export function renderCsv(report: Report): string {
  const lines = [CSV_COLUMNS.join(','), ...report.rows.map((row) => cells(row, report.historyBegins).map(csvField).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
