/**
 * The archive section of `npm run bench`: on a copy of the seeded search
 * store (archiving deletes, so the search section's store is never touched),
 * the search mix over two real cores (count cache off: cold, on: warm) with
 * no archiver running, then the archiver alone (its throughput and how long
 * it holds its event loop), then the mix again while the archiver runs
 * beside the cores, all in one run.
 */
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../config/load.ts';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { login, runToEnd, startService } from './child.ts';
import type { Panel } from './plot.ts';
import { buildQueryMix, runQueryMix } from './search.ts';
import type { QueryResult } from './search.ts';
import { ms } from './stats.ts';
import type { Reading } from './goals.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';

interface ArchiveRun {
  readonly documents: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly loopP99: number;
  readonly loopMax: number;
  /** Seconds the archiver waited for the store to take more writes (readers holding its WAL). */
  readonly waited: number;
  /** The WAL file's largest size during the run, in MB. */
  readonly walMb: number;
  readonly endedAt: number;
}

function runArchiver(dataDir: string, days: number): Promise<ArchiveRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/archive.ts', '--older-than', `${days}d`, '--only', 'jobs'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, DATA_DIR: dataDir, MONGO_URL: '', LOG_LEVEL: 'warn' } });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    // Long reads beside the archiver keep the WAL from being started again: how long it got is part of the result.
    const wal = join(dataDir, 'iap.sqlite-wal');
    let walMax = 0;
    const walWatch = setInterval(() => (walMax = Math.max(walMax, existsSync(wal) ? statSync(wal).size : 0)), 20);
    child.on('exit', (code) => {
      clearInterval(walWatch);
      const m = /(\d+) documents in ([\d.]+) s \((\d+) documents\/s\); event loop delay p99 ([\d.]+) ms, max ([\d.]+) ms; waited ([\d.]+) s/.exec(out);
      if (code !== 0 || !m) return reject(new Error(`archiver exited with ${code}: ${out}`));
      resolvePromise({ documents: Number(m[1]), seconds: Number(m[2]), perSecond: Number(m[3]), loopP99: Number(m[4]), loopMax: Number(m[5]), waited: Number(m[6]), walMb: walMax / 1024 / 1024, endedAt: performance.now() });
    });
  });
}

/**
 * An idle Node process measuring its own event loop delay until stopped: the
 * baseline for the archiver's figure, since on a loaded machine any process
 * sees delays from not being scheduled.
 */
function idleLoop(): { stop(): Promise<{ p99: number; max: number }> } {
  const code = `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 1 }); h.enable();
process.on('SIGTERM', () => { h.disable(); process.stdout.write(JSON.stringify({ p99: h.percentile(99) / 1e6, max: h.max / 1e6 })); process.exit(0); });
setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(out) as { p99: number; max: number };
    },
  };
}

/** The seeded store, copied into a fresh directory (its WAL folded in first, so the copy is whole). */
async function freshCopy(sourceDir: string, jobCount: number, workDir: string): Promise<void> {
  let have = 0;
  if (existsSync(join(sourceDir, 'iap.sqlite'))) {
    const s = SqliteStore.open({ dataDir: sourceDir, collections: CORE_COLLECTIONS });
    have = await s.collection('jobs').count(null);
    await s.close();
  }
  if (have !== jobCount) {
    rmSync(sourceDir, { recursive: true, force: true });
    console.log(`seeding ${jobCount} jobs into ${sourceDir} ...`);
    await runToEnd(['scripts/seed.ts', '--jobs', String(jobCount), '--tasks-fraction', '0.02', '--data-dir', sourceDir], { LOG_LEVEL: 'warn' });
  }
  const prepared = SqliteStore.open({ dataDir: sourceDir, collections: CORE_COLLECTIONS });
  for (const name of ['jobs', 'tasks'] as const) await prepared.collection(name).buildIndexes();
  await prepared.close();
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  copyFileSync(join(sourceDir, 'iap.sqlite'), join(workDir, 'iap.sqlite'));
}

export async function archiveSection(jobCount: number, runs: number, searchDataDir: string): Promise<{ markdown: string; panels: Panel[]; readings: Reading[] }> {
  const workDir = resolve(searchDataDir, '..', 'archive');
  await freshCopy(searchDataDir, jobCount, workDir);
  const config = await loadConfig({ env: { ...process.env, DATA_DIR: workDir, MONGO_URL: '' } });
  const PASSWORD = 'bench-admin-password';
  const coreEnv = { DATA_DIR: workDir, CORE_PORT: '0', LOG_LEVEL: 'info', MONGO_URL: '', ADMIN_USERNAME: 'bench-admin', ADMIN_PASSWORD: PASSWORD };
  const cold = await startService('core/src/main.ts', { ...coreEnv, SEARCH_COUNT_CACHE_ENTRIES: '0' });
  const warm = await startService('core/src/main.ts', coreEnv);
  const store = SqliteStore.open({ dataDir: workDir, countCacheEntries: 0, collections: CORE_COLLECTIONS });
  let idle: QueryResult[];
  let busy: QueryResult[];
  let alone: ArchiveRun;
  let idleLoopDelay: { p99: number; max: number };
  let beside: ArchiveRun;
  let overlap: number;
  try {
    const mix = await buildQueryMix(store, config.search);
    const targets = await Promise.all([cold, warm].map(async (s) => ({ baseUrl: `http://127.0.0.1:${s.port}`, token: await login(`http://127.0.0.1:${s.port}`, 'bench-admin', PASSWORD) })));
    console.log('search mix, no archiver running ...');
    idle = await runQueryMix(store, config.search, targets, mix, runs, false);
    // The seed spreads jobs over a year: the oldest quarter alone, then the next quarter beside the mix.
    console.log('archiver alone (finished jobs older than 270 days) ...');
    const idleProcess = idleLoop();
    alone = await runArchiver(workDir, 270);
    idleLoopDelay = await idleProcess.stop();
    console.log('search mix while the archiver runs (finished jobs older than 180 days) ...');
    const archiving = runArchiver(workDir, 180);
    const mixStart = performance.now();
    busy = await runQueryMix(store, config.search, targets, mix, runs, false);
    const mixEnd = performance.now();
    beside = await archiving;
    overlap = Math.min(1, Math.max(0, (Math.min(beside.endedAt, mixEnd) - mixStart) / (mixEnd - mixStart)));
  } finally {
    cold.child.kill('SIGTERM');
    warm.child.kill('SIGTERM');
    await store.close();
  }
  // Two cores, the bench's reads and the archiver on one file: a store left inconsistent must fail the run, not pass.
  const check = new Database(join(workDir, 'iap.sqlite'), { readonly: true });
  const integrity = check.pragma('quick_check', { simple: true });
  check.close();
  if (integrity !== 'ok') throw new Error(`the archive section left the store inconsistent: ${String(integrity)}`);

  const date = new Date().toISOString().slice(0, 10);
  const rows = idle.map((r, i) => {
    const b = busy[i]!;
    const [ic, iw] = r.http as [QueryResult['store'], QueryResult['store']];
    const [bc, bw] = b.http as [QueryResult['store'], QueryResult['store']];
    return `| ${r.name} | ${ms(ic.p50)} / ${ms(ic.p99)} | ${ms(bc.p50)} / ${ms(bc.p99)} | ${ms(iw.p50)} / ${ms(iw.p99)} | ${ms(bw.p50)} / ${ms(bw.p99)} |`;
  });
  const archiverRow = (label: string, a: ArchiveRun): string => `| ${label} | ${a.documents.toLocaleString('en-US')} | ${a.seconds.toFixed(1)} | ${a.perSecond.toLocaleString('en-US')} | ${a.loopP99.toFixed(1)} | ${a.loopMax.toFixed(1)} | ${a.waited.toFixed(1)} | ${a.walMb.toFixed(0)} |`;
  const markdown = [
    '<!-- bench:archive:start -->',
    `## Archive over ${jobCount.toLocaleString('en-US')} jobs (embedded SQLite store)`,
    '',
    `Command: \`npm run bench -- --only archive --jobs ${jobCount} --runs ${runs}\` · date ${date} · ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}) · Node ${process.version} · load average ${loadavg()[0]!.toFixed(1)} at the end (other work on the machine shows in every delay, hence the idle baseline)`,
    '',
    `On a copy of the seeded store, default batch size (${config.retention.batchSize} jobs with their tasks). The archiver is \`npm run archive -- --only jobs\` as its own process beside two real cores, as an operator runs it by hand; in a core's background it does the same work on the core's event loop, which is why its loop delay is reported. A search's read snapshot keeps every page written after it in the store's WAL, which can be started again only once no reader needs it; the archiver waits while the WAL is past 32 MB (docs/archive.md), and the last two columns show how long it waited and how long the WAL file got.`,
    '',
    '| archiver run | documents (jobs + tasks) | seconds | documents/s | event loop delay p99 (ms) | max (ms) | waited for readers (s) | WAL file at most (MB) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    archiverRow('alone (older than 270 days)', alone),
    archiverRow('beside the search mix (older than 180 days)', beside),
    `| baseline: an idle Node process during the run alone | – | – | – | ${idleLoopDelay.p99.toFixed(1)} | ${idleLoopDelay.max.toFixed(1)} | – | – |`,
    '',
    `Search mix over HTTP, p50 / p99 in ms, ${runs} runs per query, without and with the archiver running (it ran during ${(overlap * 100).toFixed(0)} % of the second mix). Totals are not checked against the store here, since the archiver deletes meanwhile; the warm core's remembered totals may lag the archiver's deletes until that core's next write (the count cache is per process).`,
    '',
    '| query | cold, no archiver | cold, archiver running | warm, no archiver | warm, archiver running |',
    '|---|---:|---:|---:|---:|',
    ...rows,
    '<!-- bench:archive:end -->',
  ].join('\n');
  const panels: Panel[] = [{
    section: 'archive',
    title: `Search p50 over HTTP with and without the archiver (${(jobCount / 1e6).toLocaleString('en-US')}M jobs)`,
    unit: 'ms',
    better: 'lower',
    series: ['cold, no archiver', 'cold, archiver', 'warm, no archiver', 'warm, archiver'],
    groups: idle.map((r, i) => ({ label: r.name, values: [r.http[0]!.p50, busy[i]!.http[0]!.p50, r.http[1]!.p50, busy[i]!.http[1]!.p50] })),
  }];
  const readings: Reading[] = [{
    key: 'archive.loop-p99',
    figure: Math.max(alone.loopP99, beside.loopP99),
    baseline: idleLoopDelay.p99,
    shown: `${alone.loopP99.toFixed(1)} · ${beside.loopP99.toFixed(1)} (alone · beside the mix); ${alone.perSecond} · ${beside.perSecond} documents/s`,
  }];
  return { markdown, panels, readings };
}
