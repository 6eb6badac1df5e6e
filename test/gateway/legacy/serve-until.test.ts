/**
 * The serving policy (gateway/src/legacy/serve-until.ts and policy.ts), with
 * no server: how GATEWAY_SERVE_UNTIL and gateway.serveUntil.operations give
 * each operation the end of its serving, what is refused at start, and that
 * an operation answers 410 exactly when past that end, whatever the release
 * and the clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../../../gateway/src/app.ts';
import { hatchRegistry } from '../../../gateway/src/mapping/hatches/index.ts';
import { loadMappings } from '../../../gateway/src/mapping/load.ts';
import type { Entry } from '../../../gateway/src/mapping/types.ts';
import { deprecationValues, goneMessage, isGone, servingOf } from '../../../gateway/src/legacy/policy.ts';
import { readEnd, readServeUntil, SCHEDULE } from '../../../gateway/src/legacy/serve-until.ts';
import type { EndOf, ServeEnd, ServeUntilConfig } from '../../../gateway/src/legacy/serve-until.ts';
import { loadCalendar } from '../../../gateway/src/releases.ts';

const calendar = loadCalendar(CALENDAR_FILE);
const entries = loadMappings(MAPPINGS_DIR, calendar, hatchRegistry);
const getJob = entries.find((e) => e.id === 'workflow-engine.getJob')!;

function endOf(setting: Partial<ServeUntilConfig>): EndOf {
  const read = readServeUntil({ all: null, operations: {}, ...setting }, entries, calendar);
  assert.ok(read.ok, read.ok ? '' : read.problems.join('\n'));
  return read.endOf;
}

function problems(setting: Partial<ServeUntilConfig>): readonly string[] {
  const read = readServeUntil({ all: null, operations: {}, ...setting }, entries, calendar);
  assert.equal(read.ok, false, 'the setting should have been refused');
  return read.ok ? [] : read.problems;
}

test('unset, every operation ends at its removal release, as the schedule says', () => {
  const ends = endOf({});
  assert.equal(ends, SCHEDULE);
  for (const entry of entries) assert.deepEqual(ends(entry), { kind: 'release', release: entry.removed });
});

test('GATEWAY_SERVE_UNTIL=2024.1 moves the end of every one of the 112 operations to 2024.1', () => {
  const ends = endOf({ all: '2024.1' });
  assert.equal(entries.length, 112);
  for (const entry of entries) assert.deepEqual(ends(entry), { kind: 'release', release: '2024.1' }, entry.id);
});

test('a common value never shortens an operation: one the schedule serves longer keeps its removal release', () => {
  const ends = endOf({ all: '2022.1' });
  // getJob is removed in 2022.2, after 2022.1; platform-core.getActiveSessions in 2022.1 itself.
  assert.deepEqual(ends(getJob), { kind: 'release', release: '2022.2' });
  const early = entries.find((e) => e.removed === '2021.1')!;
  assert.deepEqual(ends(early), { kind: 'release', release: '2022.1' });
  // A date before the removal's calendar date leaves it too.
  assert.deepEqual(endOf({ all: '2022-01-01' })(getJob), { kind: 'release', release: '2022.2' });
});

test('a per-operation value, by entry id, wins over the common one for that operation alone', () => {
  const ends = endOf({ all: '2024.1', operations: { 'workflow-engine.getJob': '2025-01-31' } });
  assert.deepEqual(ends(getJob), { kind: 'date', at: Date.parse('2025-01-31T00:00:00Z'), text: '2025-01-31' });
  const other = entries.find((e) => e.id === 'workflow-engine.cancelJob')!;
  assert.deepEqual(ends(other), { kind: 'release', release: '2024.1' });
});

test('values are releases the calendar dates or ISO dates; anything else is named as wrong', () => {
  assert.deepEqual(readEnd('2024.1', calendar), { kind: 'release', release: '2024.1' });
  assert.deepEqual(readEnd('2024-06-30T12:00:00+02:00', calendar), { kind: 'date', at: Date.parse('2024-06-30T10:00:00Z'), text: '2024-06-30T12:00:00+02:00' });
  assert.match(readEnd('2031.1', calendar) as string, /release 2031\.1 has no date in the release calendar/);
  for (const bad of ['2024-02-30', '2024-13-01', '30/06/2024', '1719705600000', 'tomorrow', '2024-06-30T25:00:00Z', '']) {
    assert.equal(typeof readEnd(bad, calendar), 'string', bad);
  }
});

test('attack: an operation name that stands for several routes is refused, naming the entry ids, so no route is extended that nobody named', () => {
  // finishManualTask is the operation of two routes: /finishManualTask and /finishTask.
  assert.deepEqual(problems({ operations: { finishManualTask: '2024.1' } }), [
    'config: gateway.serveUntil.operations.finishManualTask: key it by entry id, not by operation name (finishManualTask is workflow-engine.finishManualTask, workflow-engine.finishTask)',
  ]);
});

test('attack: __proto__, constructor and unknown ids are refused by name, and no operation gains an end through them', () => {
  // JSON.parse makes __proto__ an own key, as a local.json would (the loader refuses it too: test/config/serve-until.test.ts).
  const operations = JSON.parse('{"__proto__": {"workflow-engine.getJob": "2030.1"}, "constructor": "2024.1", "toString": "2024.1", "workflow-engine.getJobb": "2024.1"}') as Record<string, string>;
  const found = problems({ operations });
  assert.deepEqual(found, [
    'config: gateway.serveUntil.operations.__proto__: no entry of the mapping table has this id',
    'config: gateway.serveUntil.operations.constructor: no entry of the mapping table has this id',
    'config: gateway.serveUntil.operations.toString: no entry of the mapping table has this id',
    'config: gateway.serveUntil.operations.workflow-engine.getJobb: no entry of the mapping table has this id',
  ]);
  // An id that is the name of an Object.prototype member finds nothing that nobody configured.
  const ends = endOf({ operations: { 'workflow-engine.getJob': '2024.1' } });
  assert.deepEqual(ends({ id: 'constructor', removed: '2022.2' }), { kind: 'release', release: '2022.2' });
  assert.deepEqual(ends({ id: '__proto__', removed: '2022.2' }), { kind: 'release', release: '2022.2' });
});

test('attack: a malformed or impossible date, a release without a date, and a per-operation end before the removal are refused at start', () => {
  assert.deepEqual(problems({ all: '2024-02-30' }), ['config: gateway.serveUntil.all (GATEWAY_SERVE_UNTIL) is not a valid calendar date: must be a release like 2024.1 or an ISO date like 2024-06-30 (or 2024-06-30T12:00:00Z)']);
  assert.deepEqual(problems({ all: '2031.1' }), ['config: gateway.serveUntil.all (GATEWAY_SERVE_UNTIL) release 2031.1 has no date in the release calendar (config/releases.json)']);
  assert.deepEqual(problems({ operations: { 'workflow-engine.getJob': '06/30/2024' } }), ['config: gateway.serveUntil.operations.workflow-engine.getJob must be a release like 2024.1 or an ISO date like 2024-06-30 (or 2024-06-30T12:00:00Z)']);
  assert.match(problems({ operations: { 'workflow-engine.getJob': '2022.1' } })[0]!, /workflow-engine\.getJob ends before the operation's removal \(release 2022\.2\)/);
  assert.match(problems({ operations: { 'workflow-engine.getJob': '2022-10-27T23:59:59Z' } })[0]!, /ends before the operation's removal/);
});

test('Sunset is the end of serving: the calendar date of the serve-until release, or the date itself', () => {
  assert.equal(deprecationValues(getJob, calendar, { kind: 'release', release: '2024.1' }).sunset, 'Fri, 26 Apr 2024 00:00:00 GMT');
  assert.equal(deprecationValues(getJob, calendar, { kind: 'date', at: Date.parse('2025-01-31T12:00:00Z'), text: '2025-01-31T12:00:00Z' }).sunset, 'Fri, 31 Jan 2025 12:00:00 GMT');
  // Deprecation does not move: the operation was deprecated when it was.
  assert.equal(deprecationValues(getJob, calendar, { kind: 'release', release: '2024.1' }).deprecation, deprecationValues(getJob, calendar).deprecation);
});

test('the refusal past an extended end says both when the schedule removed it and until when this gateway served it', () => {
  assert.equal(
    goneMessage(getJob, { kind: 'release', release: '2024.1' }),
    'getJob (GET /workflow_engine/getJob/:job_id) was removed in release 2022.2 and served by this gateway until release 2024.1; use GET /operations-manager/jobs/:id instead',
  );
  assert.equal(goneMessage(getJob), 'getJob (GET /workflow_engine/getJob/:job_id) was removed in release 2022.2; use GET /operations-manager/jobs/:id instead');
});

// Releases and instants spanning the calendar, so every ordering of release, end and clock comes up.
const release = fc.tuple(fc.integer({ min: 2019, max: 2026 }), fc.integer({ min: 1, max: 3 })).map(([y, n]) => `${y}.${n}`);
const instant = fc.integer({ min: Date.parse('2019-01-01T00:00:00Z'), max: Date.parse('2027-01-01T00:00:00Z') });
const end: fc.Arbitrary<ServeEnd> = fc.oneof(
  release.map((r) => ({ kind: 'release' as const, release: r })),
  instant.map((at) => ({ kind: 'date' as const, at, text: new Date(at).toISOString() })),
);
const rank = (r: string): number => {
  const [y, n] = r.split('.').map(Number) as [number, number];
  return y * 100 + n;
};

test('property: for any release, clock and end, an operation answers 410 exactly when past the end of its serving', () => {
  fc.assert(
    fc.property(release, instant, end, (platform, now, e) => {
      const past = e.kind === 'release' ? rank(platform) >= rank(e.release) : now >= e.at;
      assert.equal(isGone(servingOf(getJob as Entry, platform, [], e), now), past);
    }),
    { numRuns: 2000 },
  );
});

test('property: whatever is configured, no operation ends before its removal, and a brownout still refuses inside its window', () => {
  const dated = ['2021.1', '2021.2', '2022.1', '2022.2', '2023.1', '2023.2', '2024.1'];
  const value = fc.oneof(fc.constantFrom(...dated), instant.map((at) => new Date(at).toISOString()));
  fc.assert(
    fc.property(fc.option(value, { nil: null }), fc.constantFrom(...entries), value, instant, (all, entry, own, now) => {
      const common = endOf({ all })(entry);
      const removal = calendar.dateOf(entry.removed).getTime();
      const at = common.kind === 'release' ? calendar.dateOf(common.release).getTime() : common.at;
      assert.ok(at >= removal, `${entry.id} ends at ${JSON.stringify(common)}, before its removal ${entry.removed}`);
      const read = readServeUntil({ all, operations: { [entry.id]: own } }, entries, calendar);
      if (read.ok) {
        const e = read.endOf(entry);
        assert.ok((e.kind === 'release' ? calendar.dateOf(e.release).getTime() : e.at) >= removal);
        const window = { operations: [entry.id], from: new Date(now - 1000).toISOString(), until: new Date(now + 1000).toISOString() };
        assert.equal(isGone(servingOf(entry, '2019.1', [window], e), now), true, 'a brownout refuses inside its window, whatever the end');
      }
    }),
    { numRuns: 500 },
  );
});
