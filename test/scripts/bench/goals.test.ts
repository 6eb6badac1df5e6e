/**
 * The bench's goals are data: one declaration (scripts/bench/goals.ts) of
 * each goal's figure, baseline and threshold, from which the summary's
 * verdicts and words and the chart's goal lines are drawn. A threshold
 * changed there changes every rendering; none is written anywhere else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOALS, goalLine, goalTable, judge } from '../../../scripts/bench/goals.ts';
import type { GoalSpec, Goals, Reading } from '../../../scripts/bench/goals.ts';
import { renderSummary } from '../../../scripts/bench/summary.ts';

const relay: Reading = { key: 'relay.throughput', figure: 2000, baseline: 5000 };
const added: Reading = { key: 'relay.p50-added', figure: 1.6, baseline: 1.2 };

function withThreshold(key: keyof typeof GOALS, threshold: number): Goals {
  return { ...GOALS, [key]: { ...(GOALS[key] as GoalSpec), threshold } };
}

test('a reading is judged against its declared threshold: as a ratio, an addition or a value', () => {
  assert.equal(judge(relay).met, false, '2000 of 5000 is 0.4×, under 0.5×');
  assert.equal(judge({ ...relay, figure: 2500 }).met, true, '0.5× exactly meets a ≥ bound');
  assert.equal(judge(added).met, true, '+0.4 ms is within 0.5 ms');
  assert.equal(judge({ key: 'engine.live-p99-looping', figure: 100, baseline: null }).met, false, 'a strict bound is not met at the threshold');
  assert.equal(judge({ key: 'gateway.metrics-pass-through-throughput', figure: 1, baseline: 1, judged: 0.96 }).met, true, 'a section may hand in the judged ratio itself');
  assert.match(judge(relay).measured, /\(0\.40×\)/);
  assert.match(judge(added).measured, /\(\+0\.40 ms\)/);
});

test('the summary and a section\'s goal table render the verdict and the words from the declared threshold only', () => {
  const as = renderSummary([relay, added], { relay: '2026-11-27' });
  assert.match(as, /0 of 2|1 of 2/);
  assert.ok(as.includes('| ≥ 0.5× the bare Node relay | **missed** |'), as);
  // The same readings under another declaration: every verdict and word follows it.
  const goals = withThreshold('relay.throughput', 0.3);
  const other = renderSummary([relay, added], { relay: '2026-11-27' }, [], goals);
  assert.ok(other.includes('| ≥ 0.3× the bare Node relay | met |'), other);
  assert.match(other, /2 of 2 goals met/);
  assert.ok(goalTable([relay], goals).some((line) => line.includes('≥ 0.3× the bare Node relay') && line.endsWith('| met |')));
  assert.ok(!other.includes('0.5×'), 'no other threshold is written');
});

test('a chart\'s goal line is the declared threshold applied to the baseline of the same run', () => {
  assert.deepEqual(goalLine('relay.throughput', 6000), { value: 3000, label: 'goal: ≥ 0.5× the bare Node relay' });
  assert.equal(goalLine('relay.p50-added', 1.2).value, 1.7);
  assert.equal(goalLine('search.indexed-p50').value, 5);
  assert.equal(goalLine('relay.throughput', 6000, withThreshold('relay.throughput', 0.25)).value, 1500);
});

test('rows stored before goals were data are shown as they were, in section order', () => {
  const legacy = [{ section: 'archive' as const, figure: 'old', baseline: '–', measured: '1', goal: 'a few ms', met: true }];
  const text = renderSummary([relay], {}, legacy);
  assert.ok(text.indexOf('| relay |') < text.indexOf('| archive |'));
  assert.match(text, /1 of 2 goals met/);
});

const BENCH = join(import.meta.dirname, '../../../scripts/bench');
const sources = (): Array<[string, string]> => [
  ['../bench.ts', readFileSync(join(BENCH, '../bench.ts'), 'utf8')],
  ...readdirSync(BENCH).filter((f) => f.endsWith('.ts') && f !== 'goals.ts').map((f): [string, string] => [f, readFileSync(join(BENCH, f), 'utf8')]),
];

test('no section judges a goal or draws a goal line of its own: thresholds live in goals.ts alone', () => {
  for (const [file, text] of sources()) {
    assert.doesNotMatch(text, /\bmet:\s/, `${file} decides a verdict itself`);
    assert.doesNotMatch(text, /goal:\s*\{\s*value:/, `${file} draws a goal line of its own`);
    assert.doesNotMatch(text, /\? 'met' : '(\*\*)?missed/, `${file} writes a verdict from its own comparison`);
  }
});

test('every declared goal is measured by some section', () => {
  const all = sources().map(([, text]) => text).join('\n');
  for (const key of Object.keys(GOALS)) assert.ok(all.includes(`'${key}'`), `${key} is declared but no section hands in a reading for it`);
});
