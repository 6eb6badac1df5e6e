/** CSV, text and HTML renderings of one small report whose texts try to break each format. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildReport } from '../../../gateway/src/audit/report.ts';
import type { Call, Report } from '../../../gateway/src/audit/report.ts';
import { bands, niceStep, renderChart } from '../../../gateway/src/audit/report-chart.ts';
import { csvField, renderCsv } from '../../../gateway/src/audit/report-csv.ts';
import { renderHtml } from '../../../gateway/src/audit/report-html.ts';
import { renderText } from '../../../gateway/src/audit/report-text.ts';

const T0 = Date.parse('2024-05-01T10:00:00Z');

function call(entry: string, removed: string, client: Partial<Call['client']>, time = T0): Call {
  return { time, operation: entry, entry: `we.${entry}`, client: { account: null, clientId: null, address: '10.0.0.9', userAgent: null, ...client }, outcome: 'rewritten', deprecated: '2021.1', removed, replacement: null };
}

const HOSTILE = 'Evil "Corp", Inc.\r\n<script>alert(1)</script>';

function report(): Report {
  return buildReport(
    [
      call('getJob', '2022.1', { account: HOSTILE, userAgent: '=HYPERLINK("http://x")' }),
      call('getJob', '2022.1', { account: HOSTILE, userAgent: 'ua "two"' }, T0 + 60_000),
      call('searchJobs', '2023.1', { address: '10.0.0.9', userAgent: 'curl/8.0' }),
    ],
    { entries: [], release: '2022.1', target: '2022.2', since: null, until: null },
    Date.parse('2024-06-01T00:00:00Z'),
  );
}

test('CSV fields: quoted only when needed, quotes doubled, formula starts defused', () => {
  assert.equal(csvField('plain'), 'plain');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('two\nlines'), '"two\nlines"');
  assert.equal(csvField('=1+1'), "'=1+1");
  assert.equal(csvField('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvField(null), '');
  assert.equal(csvField(12), '12');
});

test('CSV: the whole report, CRLF line ends, a hostile client name kept intact inside one quoted field', () => {
  assert.equal(renderCsv(report()), [
    'status,client,client_kind,user_agents,operation,entry,legacy,calls,first_seen,last_seen,rewritten,refused,failed,replacement,deprecated,removed,history_begins',
    `broken now,"Evil ""Corp"", Inc.\r\n<script>alert(1)</script>",account,"'=HYPERLINK(""http://x""); ua ""two""",getJob,we.getJob,,2,2024-05-01T10:00:00.000Z,2024-05-01T10:01:00.000Z,2,0,0,,2021.1,2022.1,`,
    'deprecated,10.0.0.9,address,curl/8.0,searchJobs,we.searchJobs,,1,2024-05-01T10:00:00.000Z,2024-05-01T10:00:00.000Z,1,0,0,,2021.1,2023.1,',
    '',
  ].join('\r\n'));
});

test('text: a summary, then columns aligned under their titles, control characters replaced', () => {
  const text = renderText(report());
  const lines = text.split('\n');
  assert.equal(lines[0], 'Legacy API migration audit: release 2022.1, target 2022.2');
  assert.equal(lines[1], 'Generated 2024-06-01T00:00:00.000Z from every recorded call');
  assert.equal(lines[2], '2 clients calling 2 legacy operations (3 calls); 1 client already broken, 0 clients with calls that break at 2022.2');
  const [header, first, second] = lines.slice(4);
  assert.doesNotMatch(text, /[\r\u001b]/);
  assert.match(first!, /^broken now  Evil "Corp", Inc\.\?\?<script>alert\(1\)<\/script>  =HYPERLINK\("http:\/\/x"\), ua "two"  getJob /);
  // Columns line up: each title starts where its values start (CALLS is right-aligned, so compare its end).
  const callsEnd = header!.indexOf('CALLS') + 'CALLS'.length;
  assert.equal(first!.slice(callsEnd - 1, callsEnd), '2');
  assert.equal(second!.slice(callsEnd - 1, callsEnd), '1');
  const op = header!.indexOf('OPERATION');
  assert.equal(first!.slice(op, op + 6), 'getJob');
  assert.equal(second!.slice(op, op + 10), 'searchJobs');
});

test('HTML: every caller-supplied text is escaped, and the page loads nothing from elsewhere', () => {
  const html = renderHtml(report());
  assert.doesNotMatch(html, /<script>/);
  assert.match(html, /Evil &quot;Corp&quot;, Inc\.\r\n&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /=HYPERLINK\(&quot;http:\/\/x&quot;\)/);
  assert.doesNotMatch(html, /<script|<link|<img|<iframe|src=|url\(|@import/i);
  assert.match(html, /<div class="n">1<\/div><div>clients broken now<\/div>/);
  assert.match(html, /1 client already gets 410 Gone at release 2022\.1\. Nothing more breaks at 2022\.2\./);
});

test('chart: one bar segment per non-empty operation bucket, nice gridlines, and extra operations folded into one band', () => {
  const r = report();
  const svg = renderChart(r.series);
  assert.equal((svg.match(/<rect /g) ?? []).length, 2, 'both operations fall in the one hour bucket');
  assert.match(svg, /<title>getJob: 2 calls \(05-01 10:00\)<\/title>/);
  assert.deepEqual([niceStep(1), niceStep(4), niceStep(7), niceStep(40), niceStep(130), niceStep(9000)], [1, 1, 2, 10, 50, 5000]);
  const many = { bucket: 'day' as const, buckets: ['2024-05-01T00:00:00.000Z'], operations: Array.from({ length: 11 }, (_, i) => ({ operation: `op${i}`, total: 20 - i, counts: [20 - i] })) };
  const b = bands(many);
  assert.equal(b.length, 8);
  assert.deepEqual(b[7], { name: '4 other operations', colour: '#555555', total: 13 + 12 + 11 + 10, counts: [46] });
  assert.equal(renderChart({ bucket: 'day', buckets: [], operations: [] }), '<p class="empty">No legacy calls in this range.</p>');
});
