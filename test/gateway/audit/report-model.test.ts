/** The report model: statuses at their boundaries, urgency order, who the client is, and the time buckets. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketFor, buildReport, clientOf, MAX_USER_AGENTS, statusOf, summarize } from '../../../gateway/src/audit/report.ts';
import type { Call, ReportOptions } from '../../../gateway/src/audit/report.ts';
import type { Entry } from '../../../gateway/src/mapping/types.ts';

function entry(id: string, operation: string, method: 'GET' | 'POST', path: string, removed: string, replacement: string | null): Entry {
  return { id, operation, source: 'workflow-engine', legacy: { method, path }, deprecated: '2021.1', removed, replacement: replacement ? { method: 'GET', path: replacement } : null, steps: [{ answer: null }] };
}

/** Removed at the configured release (2022.1), at the target (2022.2), and after it (2023.1). */
const ENTRIES: readonly Entry[] = [
  entry('we.cancelJob', 'cancelJob', 'POST', '/workflow_engine/cancelJob', '2022.1', '/operations-manager/jobs/cancel'),
  entry('we.getJob', 'getJob', 'GET', '/workflow_engine/getJob/:job_id', '2022.2', '/operations-manager/jobs/:id'),
  entry('we.searchJobs', 'searchJobs', 'POST', '/workflow_engine/jobs/search', '2023.1', null),
];
const OPTIONS: ReportOptions = { entries: ENTRIES, release: '2022.1', target: '2022.2', since: null, until: null };
const T0 = Date.parse('2024-05-01T10:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const GENERATED = Date.parse('2024-06-01T00:00:00Z');

function call(entryId: string, time: number | null, client: Partial<Call['client']> = {}, outcome: Call['outcome'] = 'rewritten'): Call {
  const e = ENTRIES.find((x) => x.id === entryId);
  return {
    time,
    operation: e?.operation ?? entryId,
    entry: entryId,
    client: { account: null, clientId: null, address: '10.0.0.9', userAgent: null, ...client },
    outcome,
    deprecated: e?.deprecated ?? '2020.1',
    removed: e?.removed ?? '2021.1',
    replacement: e?.replacement ? `${e.replacement.method} ${e.replacement.path}` : null,
  };
}

test('status: removed at or before the release is broken now, at or before the target breaks at target, later is deprecated', () => {
  assert.equal(statusOf('2022.1', '2022.1', '2022.2'), 'broken now', 'removed exactly at the current release');
  assert.equal(statusOf('2019.3', '2022.1', '2022.2'), 'broken now');
  assert.equal(statusOf('2022.2', '2022.1', '2022.2'), 'breaks at target', 'removed exactly at the target');
  assert.equal(statusOf('2022.2', '2022.1', '2023.1'), 'breaks at target');
  assert.equal(statusOf('2023.1', '2022.1', '2022.2'), 'deprecated', 'removed one release after the target');
  assert.equal(statusOf('2022.2', '2022.1', '2022.1'), 'deprecated', 'a target equal to the release adds nothing');
  // Releases compare as numbers: 2022.10 comes after 2022.9, though "2022.10" < "2022.9" as text.
  assert.equal(statusOf('2022.10', '2022.9', '2022.9'), 'deprecated');
  assert.equal(statusOf('2022.9', '2022.10', '2022.10'), 'broken now');
});

test('client: the account name, else the client id, else the address, else unknown; empty names do not count', () => {
  assert.deepEqual(clientOf({ account: 'alice', clientId: 'svc-1', address: '10.0.0.1', userAgent: 'x' }), { name: 'alice', kind: 'account' });
  assert.deepEqual(clientOf({ account: null, clientId: 'svc-1', address: '10.0.0.1', userAgent: 'x' }), { name: 'svc-1', kind: 'clientId' });
  assert.deepEqual(clientOf({ account: '', clientId: '', address: '10.0.0.1', userAgent: 'x' }), { name: '10.0.0.1', kind: 'address' });
  assert.deepEqual(clientOf({ account: null, clientId: null, address: null, userAgent: null }), { name: 'unknown', kind: 'address' });
});

test('rows per client and operation, with counts, first and last seen, outcomes and the current table\'s releases, most urgent first', () => {
  const calls = [
    call('we.searchJobs', T0 + 5 * HOUR, { account: 'alice' }),
    call('we.searchJobs', T0 + 1 * HOUR, { account: 'alice', userAgent: 'b-agent' }, 'failed'),
    call('we.searchJobs', T0 + 2 * HOUR, { account: 'alice', userAgent: 'a-agent' }),
    call('we.getJob', T0, { account: 'alice' }),
    call('we.getJob', T0 + HOUR, { clientId: 'svc-backup' }),
    call('we.getJob', T0 + 3 * HOUR, { clientId: 'svc-backup' }, 'failed'),
    call('we.cancelJob', T0 + 4 * HOUR, { address: '10.1.1.1', userAgent: 'curl/8.0' }, 'refused'),
    // An entry since dropped from the table keeps what its record said.
    call('we.retired', T0 + 6 * HOUR, { account: 'bob' }, 'refused'),
  ];
  const report = buildReport(calls, OPTIONS, GENERATED);
  const iso = (ms: number) => new Date(ms).toISOString();
  assert.deepEqual(report.rows, [
    { status: 'broken now', client: '10.1.1.1', clientKind: 'address', userAgents: ['curl/8.0'], operation: 'cancelJob', entry: 'we.cancelJob', legacy: 'POST /workflow_engine/cancelJob', calls: 1, firstSeen: iso(T0 + 4 * HOUR), lastSeen: iso(T0 + 4 * HOUR), outcomes: { rewritten: 0, refused: 1, failed: 0 }, replacement: 'GET /operations-manager/jobs/cancel', deprecated: '2021.1', removed: '2022.1' },
    { status: 'broken now', client: 'bob', clientKind: 'account', userAgents: [], operation: 'we.retired', entry: 'we.retired', legacy: null, calls: 1, firstSeen: iso(T0 + 6 * HOUR), lastSeen: iso(T0 + 6 * HOUR), outcomes: { rewritten: 0, refused: 1, failed: 0 }, replacement: null, deprecated: '2020.1', removed: '2021.1' },
    { status: 'breaks at target', client: 'svc-backup', clientKind: 'clientId', userAgents: [], operation: 'getJob', entry: 'we.getJob', legacy: 'GET /workflow_engine/getJob/:job_id', calls: 2, firstSeen: iso(T0 + HOUR), lastSeen: iso(T0 + 3 * HOUR), outcomes: { rewritten: 1, refused: 0, failed: 1 }, replacement: 'GET /operations-manager/jobs/:id', deprecated: '2021.1', removed: '2022.2' },
    { status: 'breaks at target', client: 'alice', clientKind: 'account', userAgents: [], operation: 'getJob', entry: 'we.getJob', legacy: 'GET /workflow_engine/getJob/:job_id', calls: 1, firstSeen: iso(T0), lastSeen: iso(T0), outcomes: { rewritten: 1, refused: 0, failed: 0 }, replacement: 'GET /operations-manager/jobs/:id', deprecated: '2021.1', removed: '2022.2' },
    { status: 'deprecated', client: 'alice', clientKind: 'account', userAgents: ['a-agent', 'b-agent'], operation: 'searchJobs', entry: 'we.searchJobs', legacy: 'POST /workflow_engine/jobs/search', calls: 3, firstSeen: iso(T0 + HOUR), lastSeen: iso(T0 + 5 * HOUR), outcomes: { rewritten: 2, refused: 0, failed: 1 }, replacement: null, deprecated: '2021.1', removed: '2023.1' },
  ]);
  assert.deepEqual(summarize(report), { clients: 4, operations: 4, calls: 8, brokenNow: 2, breaksAtTarget: 2 });
  assert.equal(report.generatedAt, '2024-06-01T00:00:00.000Z');
  assert.deepEqual([report.release, report.target, report.since, report.until], ['2022.1', '2022.2', null, null]);
});

test('within a status, more calls come first; equal counts fall back to client then operation', () => {
  const calls = [
    ...Array.from({ length: 2 }, () => call('we.searchJobs', T0, { account: 'zed' })),
    ...Array.from({ length: 5 }, () => call('we.searchJobs', T0, { account: 'amy' })),
    ...Array.from({ length: 2 }, () => call('we.searchJobs', T0, { account: 'bea' })),
    call('we.getJob', T0, { account: 'zed' }),
  ];
  const order = buildReport(calls, OPTIONS, GENERATED).rows.map((r) => `${r.status}/${r.client}/${r.calls}`);
  assert.deepEqual(order, ['breaks at target/zed/1', 'deprecated/amy/5', 'deprecated/bea/2', 'deprecated/zed/2']);
});

test('the current mapping table decides the releases: a removal moved later turns broken into deprecated', () => {
  const recorded = { ...call('we.searchJobs', T0, { account: 'alice' }), removed: '2021.2', deprecated: '2020.2' };
  const [row] = buildReport([recorded], OPTIONS, GENERATED).rows;
  assert.deepEqual([row!.status, row!.removed, row!.deprecated], ['deprecated', '2023.1', '2021.1']);
});

test('since is inclusive, until exclusive, and calls without a time drop out only when a range is asked', () => {
  const calls = [call('we.getJob', T0 - 1), call('we.getJob', T0), call('we.getJob', T0 + HOUR - 1), call('we.getJob', T0 + HOUR), call('we.getJob', null)];
  const ranged = buildReport(calls, { ...OPTIONS, since: T0, until: T0 + HOUR }, GENERATED);
  assert.equal(ranged.rows[0]!.calls, 2);
  assert.deepEqual([ranged.since, ranged.until], ['2024-05-01T10:00:00.000Z', '2024-05-01T11:00:00.000Z']);
  const all = buildReport(calls, OPTIONS, GENERATED);
  assert.equal(all.rows[0]!.calls, 5);
  const untimed = buildReport([call('we.getJob', null)], OPTIONS, GENERATED);
  assert.deepEqual([untimed.rows[0]!.firstSeen, untimed.rows[0]!.lastSeen], [null, null]);
  assert.deepEqual(untimed.series, { bucket: 'day', buckets: [], operations: [] });
});

test('a row keeps at most a handful of distinct user agents, so forged agents cannot grow it without bound', () => {
  const calls = Array.from({ length: 50 }, (_, i) => call('we.getJob', T0, { account: 'alice', userAgent: `agent-${String(i).padStart(2, '0')}` }));
  const [row] = buildReport(calls, OPTIONS, GENERATED).rows;
  assert.equal(row!.userAgents.length, MAX_USER_AGENTS);
  assert.equal(row!.calls, 50);
});

test('buckets: hours while the range is under two days, days from two days on', () => {
  assert.equal(bucketFor(T0, T0 + 2 * DAY - 1), 'hour');
  assert.equal(bucketFor(T0, T0 + 2 * DAY), 'day');
});

test('the series counts calls per hour per operation over a short range, empty hours included', () => {
  const calls = [call('we.getJob', T0 + 5 * 60_000), call('we.getJob', T0 + 2 * HOUR + 59 * 60_000), call('we.searchJobs', T0 + 2 * HOUR), call('we.searchJobs', T0 + 2 * HOUR + 1), call('we.searchJobs', T0 + 30 * 60_000)];
  const { series } = buildReport(calls, OPTIONS, GENERATED);
  assert.deepEqual(series, {
    bucket: 'hour',
    buckets: ['2024-05-01T10:00:00.000Z', '2024-05-01T11:00:00.000Z', '2024-05-01T12:00:00.000Z'],
    operations: [
      { operation: 'searchJobs', total: 3, counts: [1, 0, 2] },
      { operation: 'getJob', total: 2, counts: [1, 0, 1] },
    ],
  });
});

test('the series counts per UTC day over a longer range, spanning since to until when given', () => {
  const calls = [call('we.getJob', Date.parse('2024-05-02T23:59:59Z')), call('we.getJob', Date.parse('2024-05-03T00:00:00Z')), call('we.cancelJob', Date.parse('2024-05-03T12:00:00Z'))];
  const { series } = buildReport(calls, { ...OPTIONS, since: Date.parse('2024-05-01T00:00:00Z'), until: Date.parse('2024-05-05T00:00:00Z') }, GENERATED);
  assert.deepEqual(series, {
    bucket: 'day',
    buckets: ['2024-05-01T00:00:00.000Z', '2024-05-02T00:00:00.000Z', '2024-05-03T00:00:00.000Z', '2024-05-04T00:00:00.000Z'],
    operations: [
      { operation: 'getJob', total: 2, counts: [0, 1, 1, 0] },
      { operation: 'cancelJob', total: 1, counts: [0, 0, 1, 0] },
    ],
  });
});

test('a very wide range with calls in one corner charts the calls, not decades of empty days', () => {
  const calls = [call('we.getJob', Date.parse('2024-05-01T08:00:00Z')), call('we.getJob', Date.parse('2024-05-04T08:00:00Z'))];
  const { series } = buildReport(calls, { ...OPTIONS, since: Date.parse('1990-01-01T00:00:00Z') }, GENERATED);
  assert.equal(series.bucket, 'day');
  assert.deepEqual(series.buckets, ['2024-05-01T00:00:00.000Z', '2024-05-02T00:00:00.000Z', '2024-05-03T00:00:00.000Z', '2024-05-04T00:00:00.000Z']);
  assert.deepEqual(series.operations[0]!.counts, [1, 0, 0, 1]);
});
