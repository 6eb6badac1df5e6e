/**
 * Schedule math: human intervals, cron expressions (UTC by default, IANA
 * timezones, daylight-saving switches), the refusal of unusable input with a
 * message that says why, and how the next run follows a run that was late.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkRepeat, isValidTimezone, nextRun, nextRunAfter, parseRepeat } from '../../../core/src/scheduler/schedule.ts';

const at = (iso: string): number => Date.parse(iso);
const iso = (d: Date | null): string | null => d?.toISOString() ?? null;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

test('human intervals are fixed durations added to the start', () => {
  const from = at('2026-01-01T00:00:00Z');
  const cases: Array<[string, number]> = [
    ['1 day', DAY],
    ['30 minutes', 30 * MINUTE],
    ['5 seconds', 5000],
    ['1.5 hours', 1.5 * HOUR],
    ['2 days and 3 hours', 2 * DAY + 3 * HOUR],
    ['three minutes', 3 * MINUTE],
    ['1 week', 7 * DAY],
    ['1 Day', DAY],
  ];
  for (const [text, ms] of cases) {
    assert.deepEqual(parseRepeat(text), { kind: 'interval', ms }, text);
    assert.equal(nextRun(text, from)?.getTime(), from + ms, text);
  }
  assert.equal(nextRun(90_000, from)?.getTime(), from + 90_000, 'a number is milliseconds');
});

test('human intervals ignore the timezone', () => {
  const from = at('2026-03-28T12:00:00Z');
  assert.equal(nextRun('1 day', from, 'Europe/Berlin')?.getTime(), from + DAY, 'exactly 24 hours, even across the switch to summer time');
});

test('cron expressions without a timezone are read in UTC', () => {
  const from = at('2026-03-28T12:00:00Z');
  assert.equal(iso(nextRun('0 9 * * *', from)), '2026-03-29T09:00:00.000Z');
  assert.equal(iso(nextRun('*/5 * * * *', from)), '2026-03-28T12:05:00.000Z');
  assert.equal(iso(nextRun('0 12 * * *', from)), '2026-03-29T12:00:00.000Z', 'a match exactly at the start is not the next run');
  assert.equal(iso(nextRun('*/15 * * * * *', at('2026-03-28T12:00:07Z'))), '2026-03-28T12:00:15.000Z', 'six fields: seconds first');
  assert.equal(iso(nextRun('@weekly', from)), '2026-03-29T00:00:00.000Z', 'nicknames are cron (Sunday midnight)');
  assert.equal(parseRepeat('@yearly').kind, 'cron', '@yearly is the cron nickname, not the interval "year"');
});

test('cron expressions follow the timezone, including its daylight-saving switches', () => {
  // Berlin is UTC+1 in winter, UTC+2 from 29 March 2026.
  assert.equal(iso(nextRun('0 9 * * 1-5', at('2026-01-09T12:00:00Z'), 'Europe/Berlin')), '2026-01-12T08:00:00.000Z', 'Friday noon → Monday 09:00 CET');
  assert.equal(iso(nextRun('0 9 * * 1-5', at('2026-03-28T12:00:00Z'), 'Europe/Berlin')), '2026-03-30T07:00:00.000Z', 'Saturday → Monday 09:00 CEST');
  assert.equal(iso(nextRun('0 9 * * *', at('2026-03-28T12:00:00Z'), 'America/New_York')), '2026-03-28T13:00:00.000Z');
  assert.equal(iso(nextRun('0 0 * * *', at('2026-03-28T12:00:00Z'), 'Asia/Kolkata')), '2026-03-28T18:30:00.000Z', 'half-hour offsets');
  // 02:30 does not exist in Berlin on 29 March: the run happens at the first valid time after the gap.
  assert.equal(iso(nextRun('30 2 * * *', at('2026-03-28T12:00:00Z'), 'Europe/Berlin')), '2026-03-29T01:00:00.000Z');
  // 02:30 happens twice on 25 October: the run happens once.
  assert.equal(iso(nextRun('30 2 * * *', at('2026-10-24T12:00:00Z'), 'Europe/Berlin')), '2026-10-25T00:30:00.000Z');
  assert.equal(iso(nextRun('30 2 * * *', at('2026-10-25T00:31:00Z'), 'Europe/Berlin')), '2026-10-26T01:30:00.000Z');
});

test('unusable intervals and timezones are refused with a message that says why', () => {
  const refused: Array<[string | number, string | null, RegExp]> = [
    ['61 * * * *', null, /neither a human interval .* nor a cron expression .*minute/],
    ['every day', null, /neither a human interval/],
    ['soon', null, /neither a human interval/],
    ['', null, /1 to 200 characters/],
    ['0 0 30 2 *', null, /never matches/],
    ['2026-04-01T00:00:00', null, /neither a human interval/],
    ['0 0 9 * * * 2027', null, /neither/],
    ['0 9 * * *', 'Mars/Olympus', /not a known IANA timezone/],
    ['1 day', 'Nowhere', /not a known IANA timezone/],
    [-5, null, /positive number of milliseconds/],
  ];
  for (const [interval, zone, message] of refused) {
    const problem = checkRepeat(interval, zone);
    assert.ok(problem !== null, `${String(interval)} should be refused`);
    assert.match(problem, message, String(interval));
    assert.throws(() => nextRun(interval, 0, zone), { name: 'ScheduleError' });
  }
  for (const ok of ['1 day', '0 9 * * 1-5', '@hourly', '1 day and 2 hours']) assert.equal(checkRepeat(ok, 'Europe/Berlin'), null, ok);
  assert.equal(isValidTimezone('UTC'), true);
  assert.equal(isValidTimezone('Europe/Berlin'), true);
  assert.equal(isValidTimezone('Europe/Atlantis'), false);
});

test('after a late run, an interval keeps its phase and missed runs collapse into one', () => {
  const due = at('2026-01-01T00:00:00Z');
  assert.equal(iso(nextRunAfter('30 minutes', due, due + 2000)), '2026-01-01T00:30:00.000Z', 'a poll delay does not shift the schedule');
  assert.equal(iso(nextRunAfter('30 minutes', due, at('2026-01-01T02:05:00Z'))), '2026-01-01T02:30:00.000Z', 'four missed runs, one made, the next on the grid');
  assert.equal(iso(nextRunAfter('30 minutes', due, at('2026-01-01T02:30:00Z'))), '2026-01-01T03:00:00.000Z', 'a run exactly on the grid moves to the next slot');
  assert.equal(iso(nextRunAfter('1 hour', at('2026-01-01T05:00:00Z'), at('2026-01-01T04:00:00Z'))), '2026-01-01T06:00:00.000Z', 'run early (by hand): one interval after the due time');
});

test('after a late run, cron takes the first match after now', () => {
  const due = at('2026-01-01T09:00:00Z');
  assert.equal(iso(nextRunAfter('0 9 * * *', due, due + 5000)), '2026-01-02T09:00:00.000Z');
  assert.equal(iso(nextRunAfter('0 9 * * *', due, at('2026-01-05T10:00:00Z'))), '2026-01-06T09:00:00.000Z', 'four missed days, one run');
  assert.equal(iso(nextRunAfter('0 9 * * *', due, at('2026-01-05T10:00:00Z'), 'Europe/Berlin')), '2026-01-06T08:00:00.000Z');
});
