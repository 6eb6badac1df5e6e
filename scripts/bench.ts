/**
 * `npm run bench`: every benchmark figure the issues ask for, each beside its
 * baseline in the same run, written to BENCHMARKS.md with the command and date.
 *
 *   npm run bench -- [--only all|search|engine|core|gateway|relay|archive] [--jobs 1000000] [--runs 300] [--seconds 10]
 *                    [--engine-jobs 3000] [--data-dir .bench-data/search] [--fresh] [--no-write] [--cpu-prof DIR]
 *
 * `--cpu-prof DIR` writes a V8 CPU profile of each core process the core and relay sections start into DIR
 * (open it in Chrome's DevTools) and adds where their time went to the sections' markdown. The profiled cores are
 * extra ones, run after the measured rows, so the profiler's own cost is in none of the figures.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { archiveSection } from './bench/archive-section.ts';
import { coreSection } from './bench/core-section.ts';
import { engineSection } from './bench/engine-section.ts';
import { gatewaySection } from './bench/gateway-section.ts';
import { renderPlot } from './bench/plot.ts';
import type { Panel } from './bench/plot.ts';
import type { Reading } from './bench/goals.ts';
import { renderSummary } from './bench/summary.ts';
import type { Goal } from './bench/summary.ts';
import { relaySection } from './bench/relay-section.ts';
import { searchSection } from './bench/search-section.ts';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', default: 'all' },
    jobs: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '300' },
    'engine-jobs': { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '10' },
    'data-dir': { type: 'string', default: '.bench-data/search' },
    fresh: { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
const USAGE = 'usage: npm run bench -- [--only all|search|engine|core|gateway|relay|archive] [--seconds N>=2] [--jobs N>=1000] [--runs N>=10] [--engine-jobs N>=100] [--data-dir DIR] [--fresh] [--no-write] [--cpu-prof DIR]\n  one section: npm run bench -- --only relay --seconds 3 --no-write (prints its markdown without writing BENCHMARKS.md)';
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const jobCount = Number(args.jobs);
const runs = Number(args.runs);
const engineJobs = Number(args['engine-jobs']);
const only = args.only!;
const seconds = Number(args.seconds);
const SECTIONS = ['search', 'engine', 'core', 'gateway', 'relay', 'archive'];
const profileDir = args['cpu-prof'] === undefined ? null : resolve(args['cpu-prof']);
if (!['all', ...SECTIONS].includes(only) || !Number.isSafeInteger(seconds) || seconds < 2 || !Number.isSafeInteger(jobCount) || jobCount < 1000 || !Number.isSafeInteger(runs) || runs < 10 || !Number.isSafeInteger(engineJobs) || engineJobs < 100) {
  console.error(USAGE);
  process.exit(2);
}

/** Where the picture and the figures it is drawn from live; a run of one section keeps the others' panels. */
const PLOT_DIR = resolve('docs/bench');
const RESULTS_FILE = resolve(PLOT_DIR, 'results.json');
const PLOT_FILE = resolve(PLOT_DIR, 'benchmarks.svg');
const PLOT_LINK = '![Every benchmark figure beside its baseline and goal](docs/bench/benchmarks.svg)';

/** Replaces one marked section of BENCHMARKS.md, or appends it. */
function write(marker: string, section: string): void {
  const file = resolve('BENCHMARKS.md');
  let current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n\nFigures come from `npm run bench`. Machines are noisy: read medians and ratios, not single runs.\n\n';
  // The picture goes under the title and its first paragraph.
  if (!current.includes(PLOT_LINK)) current = current.replace(/^(#[^\n]*\n\n[^\n]+\n\n)/, `$1${PLOT_LINK}\n\n`);
  const pattern = new RegExp(`<!-- bench:${marker}:start -->[\\s\\S]*<!-- bench:${marker}:end -->`);
  if (pattern.test(current)) writeFileSync(file, current.replace(pattern, section));
  // The summary goes under the picture, at the top; sections go at the end.
  else if (marker === 'summary') writeFileSync(file, current.replace(PLOT_LINK, `${PLOT_LINK}\n\n${section}`));
  else writeFileSync(file, `${current.trimEnd()}\n\n${section}\n`);
}

interface Stored {
  panels: Panel[];
  /** Readings of each section's last run, judged against goals.ts whenever the summary is drawn. */
  readings: Array<Reading & { section: string }>;
  /** Rows of sections last run before goals were data; a section's rerun replaces them with readings. */
  goals: Goal[];
  dates: Record<string, string>;
}

/** Replaces one section's panels and readings, then redraws the picture and the summary table from all of them. */
function record(section: string, panels: readonly Panel[], readings: readonly Reading[]): void {
  mkdirSync(PLOT_DIR, { recursive: true });
  const stored: Stored = { panels: [], readings: [], goals: [], dates: {}, ...(existsSync(RESULTS_FILE) ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Partial<Stored>) : {}) };
  const bySection = <T extends { section: string }>(kept: readonly T[], fresh: readonly T[]): T[] =>
    [...kept.filter((x) => x.section !== section), ...fresh].sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section));
  const next: Stored = {
    panels: bySection(stored.panels, panels),
    readings: bySection(stored.readings, readings.map((r) => ({ ...r, section }))),
    goals: stored.goals.filter((g) => g.section !== section),
    dates: { ...stored.dates, [section]: new Date().toISOString().slice(0, 10) },
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(next, null, 1)}\n`);
  writeFileSync(PLOT_FILE, renderPlot(next.panels, `npm run bench · ${process.version} · each panel from its section's last run`));
  write('summary', renderSummary(next.readings, next.dates, next.goals));
}

async function run(name: string, section: () => Promise<{ markdown: string; panels: Panel[]; readings: Reading[] }>): Promise<void> {
  if (only !== 'all' && only !== name) return;
  const { markdown, panels, readings } = await section();
  console.log(`\n${markdown}\n`);
  if (args['no-write']) return;
  write(name, markdown);
  record(name, panels, readings);
}

await run('search', () => searchSection(jobCount, runs, resolve(args['data-dir']!), args.fresh!));
await run('engine', () => engineSection(engineJobs, profileDir));
await run('core', () => coreSection(seconds, profileDir));
await run('gateway', () => gatewaySection(seconds, 10));
await run('relay', () => relaySection(seconds, profileDir));
await run('archive', () => archiveSection(jobCount, runs, resolve(args['data-dir']!)));
