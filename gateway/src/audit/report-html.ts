/**
 * The report as a page for people: what is already broken and what breaks
 * at the target first, the calls over time, then every client and
 * operation. Self-contained (inline CSS and SVG) so it works offline, saved
 * as a file, and under a Content-Security-Policy that allows nothing else.
 * Every text that came from the audit is escaped.
 */
import { SECURITY_HEADERS } from '../../../kernel/index.ts';
import { escapeHtml as e, renderChart } from './report-chart.ts';
import type { Report, ReportRow, RowStatus } from './report.ts';
import { summarize } from './report.ts';
import { historyText, plural, rangeText, shortTime } from './report-text.ts';

/** The headers the HTML answer carries: the page runs nothing and embeds nothing from elsewhere. */
export const HTML_HEADERS: Readonly<Record<string, string>> = {
  // default-src does not cover base-uri, form-action or frame-ancestors: each is closed by name.
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  ...SECURITY_HEADERS,
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const BADGE: Record<RowStatus, string> = { 'broken now': 'broken', 'breaks at target': 'target', deprecated: 'deprecated' };
const KIND = { account: 'account', clientId: 'client id', address: 'address' } as const;

const STYLE = `
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", "Liberation Sans", sans-serif; color: var(--fg); background: #fff; }
main { max-width: 1240px; margin: 0 auto; padding: 28px 32px 48px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 10px; }
.muted { color: var(--muted); }
.meta { margin: 0; color: var(--muted); }
.meta b { color: var(--fg); }
.cards { display: grid; grid-template-columns: repeat(5, 1fr); gap: 12px; margin: 22px 0 8px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: var(--bg); }
.card .n { font-size: 28px; font-weight: 650; line-height: 1.2; }
.card.broken { background: #ffebe9; border-color: #ff8182; }
.card.target { background: #fff8c5; border-color: #d4a72c; }
.lead { font-size: 16px; margin: 12px 0 0; }
.chart { margin: 0; }
.chart svg { display: block; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
.tick { font-size: 12px; fill: #57606a; }
.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 6px 18px; padding: 0; margin: 10px 0 0; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--bg); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; color: var(--muted); overflow-wrap: anywhere; }
.ua { display: block; font-size: 12.5px; color: var(--muted); overflow-wrap: anywhere; }
.badge { display: inline-block; padding: 2px 8px; border-radius: 999px; font-size: 12.5px; font-weight: 600; white-space: nowrap; border: 1px solid; }
.badge.broken { background: #ffebe9; color: #a40e26; border-color: #ff8182; }
.badge.target { background: #fff8c5; color: #7d4e00; border-color: #d4a72c; }
.badge.deprecated { background: #ddf4ff; color: #0550ae; border-color: #80ccff; }
tr.broken td:first-child { box-shadow: inset 4px 0 #cf222e; }
tr.target td:first-child { box-shadow: inset 4px 0 #bf8700; }
.outcomes { font-size: 13px; }
.outcomes b { font-weight: 600; }
.nowrap { white-space: nowrap; }
.use { display: block; margin-top: 2px; font-size: 13px; }
.scroll { overflow-x: auto; }
.empty { padding: 24px; border: 1px dashed var(--line); border-radius: 8px; color: var(--muted); }
dl.key { display: grid; grid-template-columns: max-content 1fr; gap: 6px 14px; margin: 8px 0 0; }
dl.key dd { margin: 0; }
`;

function card(label: string, value: number, cls = ''): string {
  return `<div class="card ${cls}"><div class="n">${value}</div><div>${e(label)}</div></div>`;
}

function row(r: ReportRow): string {
  const agents = r.userAgents.length > 0 ? r.userAgents.map((ua) => `<span class="ua">${e(ua)}</span>`).join('') : '';
  const outcomes = (['rewritten', 'refused', 'failed'] as const).map((o) => `<span class="nowrap"><b>${r.outcomes[o]}</b> ${o}</span>`).join('<br>');
  const replacement = r.replacement ? `<span class="use">use <code>${e(r.replacement)}</code></span>` : '<span class="use muted">no replacement</span>';
  return `<tr class="${BADGE[r.status]}">
<td><span class="badge ${BADGE[r.status]}">${e(r.status)}</span></td>
<td><strong>${e(r.client)}</strong> <span class="muted">(${KIND[r.clientKind]})</span>${agents}</td>
<td><strong>${e(r.operation)}</strong>${r.legacy ? ` <code>${e(r.legacy)}</code>` : ''}${replacement}</td>
<td class="num">${r.calls}</td>
<td class="nowrap">${e(shortTime(r.firstSeen))}<br><span class="muted">${e(shortTime(r.lastSeen))}</span></td>
<td class="outcomes">${outcomes}</td>
<td class="nowrap"><strong>${e(r.removed)}</strong><br><span class="muted">deprecated ${e(r.deprecated)}</span></td>
</tr>`;
}

function lead(report: Report): string {
  const s = summarize(report);
  if (s.clients === 0) return 'No legacy calls were recorded in this range.';
  const broken = s.brokenNow > 0 ? `${plural(s.brokenNow, 'client')} already ${s.brokenNow === 1 ? 'gets' : 'get'} 410 Gone at release ${report.release}. ` : `Nothing is broken at release ${report.release}. `;
  const target = s.breaksAtTarget > 0 ? `${plural(s.breaksAtTarget, 'client')} ${s.breaksAtTarget === 1 ? 'calls' : 'call'} operations that stop working at ${report.target}.` : `Nothing more breaks at ${report.target}.`;
  return broken + target;
}

export function renderHtml(report: Report): string {
  const s = summarize(report);
  const title = `Legacy API migration audit: ${report.release} → ${report.target}`;
  const table = report.rows.length === 0
    ? '<p class="empty">No legacy calls were recorded in this range.</p>'
    : `<div class="scroll"><table>
<thead><tr><th>Status</th><th>Client</th><th>Operation and its replacement</th><th class="num">Calls</th><th>First / last seen</th><th>Outcomes</th><th>Removed in</th></tr></thead>
<tbody>
${report.rows.map(row).join('\n')}
</tbody>
</table></div>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<h1>Legacy API migration audit</h1>
<p class="meta">Platform release <b>${e(report.release)}</b> · target release <b>${e(report.target)}</b> · ${e(rangeText(report))} · generated ${e(report.generatedAt)}</p>
${historyText(report) === null ? '' : `<p class="meta history">${e(historyText(report)!)}</p>\n`}</header>
<section class="cards" aria-label="Summary">
${card('clients', s.clients)}
${card('legacy operations', s.operations)}
${card('legacy calls', s.calls)}
${card('clients broken now', s.brokenNow, s.brokenNow > 0 ? 'broken' : '')}
${card(`clients with calls that break at ${report.target}`, s.breaksAtTarget, s.breaksAtTarget > 0 ? 'target' : '')}
</section>
<p class="lead">${e(lead(report))}</p>
<section>
<h2>Legacy calls over time</h2>
${renderChart(report.series)}
</section>
<section>
<h2>Who calls what, most urgent first</h2>
${table}
<dl class="key">
<dt><span class="badge broken">broken now</span></dt><dd>no longer served at release ${e(report.release)} (removed, and past any end the gateway's serving policy gives them): these calls already answer 410 Gone.</dd>
<dt><span class="badge target">breaks at target</span></dt><dd>served no longer than ${e(report.target)}: these calls stop working when the platform moves there (or, for an end that is a date, when that date comes).</dd>
<dt><span class="badge deprecated">deprecated</span></dt><dd>still served after ${e(report.target)}, but scheduled for removal later.</dd>
</dl>
</section>
</main>
</body>
</html>
`;
}
