/**
 * `npm run bench`: every benchmark figure the issues ask for, each beside its
 * baseline in the same run, written to BENCHMARKS.md with the command and date.
 *
 *   npm run bench -- [--only all|search|engine|gateway|relay] [--jobs 1000000] [--runs 300] [--seconds 10]
 *                    [--engine-jobs 3000] [--data-dir .bench-data/search] [--fresh] [--no-write]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { engineSection } from './bench/engine-section.ts';
import { gatewaySection } from './bench/gateway-section.ts';
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
  },
});
const jobCount = Number(args.jobs);
const runs = Number(args.runs);
const engineJobs = Number(args['engine-jobs']);
const only = args.only!;
const seconds = Number(args.seconds);
if (!['all', 'search', 'engine', 'gateway', 'relay'].includes(only) || !Number.isSafeInteger(seconds) || seconds < 2 || !Number.isSafeInteger(jobCount) || jobCount < 1000 || !Number.isSafeInteger(runs) || runs < 10 || !Number.isSafeInteger(engineJobs) || engineJobs < 100) {
  console.error('usage: npm run bench -- [--only all|search|engine|gateway|relay] [--seconds N>=2] [--jobs N>=1000] [--runs N>=10] [--engine-jobs N>=100] [--data-dir DIR] [--fresh] [--no-write]');
  process.exit(2);
}

/** Replaces one marked section of BENCHMARKS.md, or appends it. */
function write(marker: string, section: string): void {
  const file = resolve('BENCHMARKS.md');
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n\nFigures come from `npm run bench`. Machines are noisy: read medians and ratios, not single runs.\n\n';
  const pattern = new RegExp(`<!-- bench:${marker}:start -->[\\s\\S]*<!-- bench:${marker}:end -->`);
  writeFileSync(file, pattern.test(current) ? current.replace(pattern, section) : `${current.trimEnd()}\n\n${section}\n`);
}

if (only === 'all' || only === 'search') {
  const section = await searchSection(jobCount, runs, resolve(args['data-dir']!), args.fresh!);
  console.log(`\n${section}\n`);
  if (!args['no-write']) write('search', section);
}
if (only === 'all' || only === 'engine') {
  const section = await engineSection(engineJobs);
  console.log(`\n${section}\n`);
  if (!args['no-write']) write('engine', section);
}
if (only === 'all' || only === 'gateway') {
  const section = await gatewaySection(seconds, 10);
  console.log(`\n${section}\n`);
  if (!args['no-write']) write('gateway', section);
}
if (only === 'all' || only === 'relay') {
  const section = await relaySection(seconds);
  console.log(`\n${section}\n`);
  if (!args['no-write']) write('relay', section);
}
