/**
 * The one table of `npm run bench`: every goal the issues set, with the
 * baseline it was measured beside in the same run, the figure and whether
 * it was met. Sections hand their rows in; a rerun of one section keeps the
 * others' rows (they are stored with the plot's panels).
 */

export interface Goal {
  readonly section: string;
  readonly figure: string;
  readonly baseline: string;
  readonly measured: string;
  readonly goal: string;
  readonly met: boolean;
}

export function renderSummary(goals: readonly Goal[], dates: Readonly<Record<string, string>>): string {
  const met = goals.filter((g) => g.met).length;
  return [
    '<!-- bench:summary:start -->',
    '## Every goal at a glance',
    '',
    `${met} of ${goals.length} goals met. Each figure was measured beside its baseline in one run of its section (the section's date is in the last column); the sections below have the details and the commands.`,
    '',
    '| section | figure | baseline (same run) | measured | goal | | run |',
    '|---|---|---|---|---|---|---|',
    ...goals.map((g) => `| ${g.section} | ${g.figure} | ${g.baseline} | ${g.measured} | ${g.goal} | ${g.met ? 'met' : '**missed**'} | ${dates[g.section] ?? ''} |`),
    '<!-- bench:summary:end -->',
  ].join('\n');
}
