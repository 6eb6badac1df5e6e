/**
 * The audit report's "what breaks at release X" under a serving policy
 * (decision 31): a row's status follows the end of the operation's serving
 * at the gateway (gateway/src/legacy/serve-until.ts), the rule by which the
 * gateway itself answers 410, not the schedule's removal alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildReport, statusOfEnd } from '../../../gateway/src/audit/report.ts';
import type { Call } from '../../../gateway/src/audit/report.ts';
import { readServeUntil } from '../../../gateway/src/legacy/serve-until.ts';
import type { Entry } from '../../../gateway/src/mapping/types.ts';
import { CALENDAR_FILE } from '../../../gateway/src/app.ts';
import { loadCalendar } from '../../../gateway/src/releases.ts';

const calendar = loadCalendar(CALENDAR_FILE);
const NOW = Date.parse('2023-06-01T00:00:00Z');
const at = (release: string, target: string) => ({ release, target, now: NOW, calendar });

test('an end that is a release: broken at it, breaking at a target at or past it, else deprecated', () => {
  const end = { kind: 'release', release: '2024.1' } as const;
  assert.equal(statusOfEnd(end, at('2023.1', '2023.2')), 'deprecated');
  assert.equal(statusOfEnd(end, at('2023.1', '2024.1')), 'breaks at target');
  assert.equal(statusOfEnd(end, at('2024.1', '2024.1')), 'broken now');
});

test('an end that is a date: broken once the clock passes it; breaking at a target whose date it precedes, or one the calendar cannot date', () => {
  const end = { kind: 'date', at: Date.parse('2024-01-15T00:00:00Z'), text: '2024-01-15' } as const;
  assert.equal(statusOfEnd(end, at('2023.1', '2023.2')), 'deprecated', '2023.2 came out on 2023-10-27, before the end');
  assert.equal(statusOfEnd(end, at('2023.1', '2024.1')), 'breaks at target', '2024.1 is dated 2024-04-26, after the end');
  assert.equal(statusOfEnd(end, at('2023.1', '2031.1')), 'breaks at target', 'an undated target: the date comes whatever the release');
  assert.equal(statusOfEnd(end, { ...at('2023.1', '2023.2'), now: Date.parse('2024-01-15T00:00:00Z') }), 'broken now');
});

test('a report under GATEWAY_SERVE_UNTIL=2024.1 in front of 2023.1 shows nothing broken now and everything breaking at 2024.1', () => {
  const entry: Entry = { id: 'we.getJob', operation: 'getJob', source: 'workflow-engine', legacy: { method: 'GET', path: '/workflow_engine/getJob/:job_id' }, deprecated: '2021.2', removed: '2022.2', replacement: null, steps: [{ answer: null }] };
  const policy = readServeUntil({ all: '2024.1', operations: {} }, [entry], calendar);
  assert.ok(policy.ok);
  const calls: Call[] = [{ time: NOW - 1000, operation: 'getJob', entry: 'we.getJob', client: { account: 'etl', clientId: null, address: null, userAgent: null }, outcome: 'rewritten', deprecated: '2021.2', removed: '2022.2', replacement: null }];
  const report = (target: string, endOf = policy.endOf) => buildReport(calls, { entries: [entry], release: '2023.1', target, since: null, until: null, calendar, endOf }, NOW);
  assert.equal(report('2023.2').rows[0]!.status, 'deprecated');
  assert.equal(report('2024.1').rows[0]!.status, 'breaks at target');
  // Without the policy the same call is broken already: the schedule removed it in 2022.2.
  assert.equal(buildReport(calls, { entries: [entry], release: '2023.1', target: '2023.2', since: null, until: null }, NOW).rows[0]!.status, 'broken now');
});
