/**
 * The benchmark picture: one bar per measured value, drawn to scale with the
 * goal line, every text escaped, nothing external referenced.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderPlot } from '../../../scripts/bench/plot.ts';
import type { Panel } from '../../../scripts/bench/plot.ts';

const panel: Panel = {
  section: 'search',
  title: 'Search <p50> & more',
  unit: 'ms',
  better: 'lower',
  series: ['store', 'HTTP'],
  groups: [{ label: 'status', values: [2, 4] }, { label: 'text', values: [8, null] }],
  goal: { value: 5, label: 'goal ≤ 5 ms' },
};

function barWidths(svg: string): number[] {
  return [...svg.matchAll(/<rect x="\d+" y="[\d.]+" width="([\d.]+)" height="12"/g)].map((m) => Number(m[1]));
}

test('every measured value is one bar, to scale; a missing value draws none', () => {
  const svg = renderPlot([panel], 'bench');
  const widths = barWidths(svg);
  assert.equal(widths.length, 3);
  assert.ok(Math.abs(widths[1]! / widths[0]! - 2) < 0.01, 'a value twice another is twice as long');
  assert.ok(Math.abs(widths[2]! / widths[0]! - 4) < 0.01);
});

test('the goal line sits where its value falls on the same scale', () => {
  const svg = renderPlot([panel], 'bench');
  const goalX = Number(/<line x1="([\d.]+)"/.exec(svg)![1]);
  const barStart = Number(/<rect x="(\d+)" y="[\d.]+" width="([\d.]+)" height="12"/.exec(svg)![1]);
  const twoMs = barWidths(svg)[0]!;
  assert.ok(Math.abs((goalX - barStart) / twoMs - 2.5) < 0.02, 'the 5 ms goal is 2.5 times the 2 ms bar');
});

test('text is escaped and nothing outside the file is referenced', () => {
  const svg = renderPlot([panel, { ...panel, title: 'second' }, { ...panel, title: 'third' }], 'a & b');
  assert.match(svg, /Search &lt;p50&gt; &amp; more/);
  assert.match(svg, /a &amp; b/);
  assert.doesNotMatch(svg, /<script|href=|url\(/);
  assert.equal((svg.match(/<g transform=/g) ?? []).length, 3, 'one group per panel, two to a row');
});
