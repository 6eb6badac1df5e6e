/**
 * `npm run bench`: seeds a large embedded store (once; reused while it holds
 * the asked number of jobs), starts the real core on it, runs the search
 * query mix in-process and over HTTP side by side, measures the core's
 * memory, and writes the table to BENCHMARKS.md.
 *
 *   npm run bench -- [--jobs 1000000] [--runs 300] [--data-dir .bench-data/search] [--fresh]
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { SqliteStore } from '../core/src/store/sqlite/store.ts';
import { memoryOf, runToEnd, startService } from './bench/child.ts';
import { buildQueryMix, runQueryMix } from './bench/search.ts';
import type { QueryResult } from './bench/search.ts';
import { ms } from './bench/stats.ts';

const { values: args } = parseArgs({
  options: {
    jobs: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '300' },
    'data-dir': { type: 'string', default: '.bench-data/search' },
    fresh: { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
  },
});
const jobCount = Number(args.jobs);
const runs = Number(args.runs);
const dataDir = resolve(args['data-dir']!);
if (!Number.isSafeInteger(jobCount) || jobCount < 1000 || !Number.isSafeInteger(runs) || runs < 10) {
  console.error('usage: npm run bench -- [--jobs N>=1000] [--runs N>=10] [--data-dir DIR] [--fresh]');
  process.exit(2);
}

async function storedJobs(): Promise<number> {
  if (!existsSync(resolve(dataDir, 'iap.sqlite'))) return 0;
  const store = SqliteStore.open({ dataDir });
  try {
    return await store.collection('jobs').count(null);
  } finally {
    await store.close();
  }
}

let seedSeconds: number | null = null;
if (args.fresh || (await storedJobs()) !== jobCount) {
  rmSync(dataDir, { recursive: true, force: true });
  console.log(`seeding ${jobCount} jobs into ${dataDir} ...`);
  const started = performance.now();
  await runToEnd(['scripts/seed.ts', '--jobs', String(jobCount), '--tasks-fraction', '0.02', '--data-dir', dataDir], { LOG_LEVEL: 'warn' });
  seedSeconds = (performance.now() - started) / 1000;
}

const config = await loadConfig({ env: { ...process.env, DATA_DIR: dataDir, MONGO_URL: '' } });
const core = await startService('core/src/main.ts', { DATA_DIR: dataDir, CORE_PORT: '0', LOG_LEVEL: 'info', MONGO_URL: '' });
const store = SqliteStore.open({ dataDir });
let results: QueryResult[];
let memory: { rssMb: number; peakMb: number };
try {
  const mix = await buildQueryMix(store, config.search);
  results = await runQueryMix(store, config.search, `http://127.0.0.1:${core.port}`, mix, runs);
  memory = memoryOf(core.child.pid!);
} finally {
  core.child.kill('SIGTERM');
  await store.close();
}

const date = new Date().toISOString().slice(0, 10);
const verdict = (r: QueryResult): string => {
  const ok = r.http.p50 <= r.goal.p50 && (r.goal.p99 === null || r.http.p99 <= r.goal.p99);
  return `${ok ? 'met' : 'missed'} (p50 ≤ ${r.goal.p50}${r.goal.p99 === null ? '' : `, p99 ≤ ${r.goal.p99}`})`;
};
const rows = results.map(
  (r) => `| ${r.name} | ${r.total.toLocaleString('en-US')} | ${ms(r.store.p50)} | ${ms(r.store.p99)} | ${ms(r.http.p50)} | ${ms(r.http.p99)} | ${(r.http.p50 / r.store.p50).toFixed(1)}× | ${verdict(r)} |`,
);
const section = [
  '<!-- bench:search:start -->',
  `## Search over ${jobCount.toLocaleString('en-US')} jobs (embedded SQLite store)`,
  '',
  `Command: \`npm run bench -- --jobs ${jobCount} --runs ${runs}\` · date ${date} · ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}) · Node ${process.version}`,
  '',
  `Each query ran ${runs} times after 10 warm-up calls, one at a time. *Store* is the baseline: the same validated search answered in-process by the store (no HTTP, no JSON). *HTTP* is the real core process answering \`GET /operations-manager/jobs\` on loopback, page of up to 100 full job documents plus the exact \`total\` (checked against the store's count on every call). Times in ms; medians and p99, never means.`,
  '',
  '| query | total | store p50 | store p99 | HTTP p50 | HTTP p99 | HTTP/store (p50) | goal (HTTP) |',
  '|---|---:|---:|---:|---:|---:|---:|---|',
  ...rows,
  '',
  `Core process memory after the mix: RSS ${memory.rssMb.toFixed(0)} MB, peak ${memory.peakMb.toFixed(0)} MB (goal: under 500 MB at 1M jobs).${seedSeconds === null ? ' The store was already seeded.' : ` Seeding took ${seedSeconds.toFixed(0)} s.`}`,
  '',
  'Queries:',
  ...results.map((r) => `- ${r.name}: \`${r.query.length > 160 ? `${r.query.slice(0, 160)}…` : r.query}\``),
  '<!-- bench:search:end -->',
].join('\n');

console.log(`\n${section}\n`);
if (!args['no-write']) {
  const file = resolve('BENCHMARKS.md');
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n\nFigures come from `npm run bench`. Machines are noisy: read medians and ratios, not single runs.\n\n';
  const next = /<!-- bench:search:start -->[\s\S]*<!-- bench:search:end -->/.test(current)
    ? current.replace(/<!-- bench:search:start -->[\s\S]*<!-- bench:search:end -->/, section)
    : `${current.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
  console.log('wrote BENCHMARKS.md');
}
