/**
 * The one table of `npm run bench`: every goal the issues set, with the
 * baseline it was measured beside in the same run, the figure and whether
 * it was met. Sections hand in readings; the goals, their words and their
 * verdicts come from goals.ts. A rerun of one section keeps the others'
 * readings (they are stored with the plot's panels).
 */
import { GOALS, judge, verdict } from './goals.ts';
import type { Goals, Judged, Reading } from './goals.ts';

/**
 * A row stored before goals were declared as data (text and verdict only): shown as it was until its section
 * runs again and hands in readings.
 */
export type Goal = Judged;

export function renderSummary(readings: readonly Reading[], dates: Readonly<Record<string, string>>, legacy: readonly Goal[] = [], goals: Goals = GOALS): string {
  const rows = [...legacy, ...readings.map((r) => judge(r, goals))];
  const order = ['search', 'engine', 'core', 'gateway', 'relay', 'archive'];
  rows.sort((a, b) => order.indexOf(a.section) - order.indexOf(b.section));
  const met = rows.filter((g) => g.met).length;
  return [
    '<!-- bench:summary:start -->',
    '## Every goal at a glance',
    '',
    `${met} of ${rows.length} goals met. Each figure was measured beside its baseline in one run of its section (the section's date is in the last column); the sections below have the details and the commands. The goals and their thresholds are declared once, in \`scripts/bench/goals.ts\`.`,
    '',
    '| section | figure | baseline (same run) | measured | goal | | run |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((g) => `| ${g.section} | ${g.figure} | ${g.baseline} | ${g.measured} | ${g.goal} | ${verdict(g.met)} | ${dates[g.section] ?? ''} |`),
    '<!-- bench:summary:end -->',
  ].join('\n');
}
