/**
 * The engine section of `npm run bench`: a real core process on a fresh
 * embedded store, measured against the goals. With `--cpu-prof`,
 * where a job's time goes: the throughput runs again on a core of its own
 * under the profiler, after the measured one, so the profiler's cost is not
 * in the figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { login, memoryOf, startService } from './child.ts';
import type { Started } from './child.ts';
import { byJobStage } from './engine-profile.ts';
import { runEngineBench } from './engine.ts';
import { runLoopBench } from './loop.ts';
import type { Panel } from './plot.ts';
import { goalLine, goalTable } from './goals.ts';
import { mainProfileIn, profileShares, sharesTable } from './profile-summary.ts';
import type { Share } from './profile-summary.ts';
import { profiling, stopAll } from './relay-section.ts';
import type { Reading } from './goals.ts';
import { ms } from './stats.ts';

const CONCURRENCY = 32;

function startCore(dataDir: string, profileDir: string | null): Promise<Started> {
  return startService('core/src/main.ts', { DATA_DIR: dataDir, CORE_PORT: '0', LOG_LEVEL: 'info', MONGO_URL: '', ADMIN_USERNAME: 'bench-admin', ADMIN_PASSWORD: 'bench-admin-password', ENGINE_MAX_TASK_RUNS_PER_JOB: '10000000' }, null, profiling(profileDir));
}

/** The throughput runs (cold, then warm) on a fresh core of its own under `--cpu-prof`, and where its time went. */
async function profiledShares(dir: string, jobs: number): Promise<Share[] | null> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iap-bench-engine-prof-'));
  const core = await startCore(dataDir, dir);
  try {
    const url = `http://127.0.0.1:${core.port}`;
    await runEngineBench(url, await login(url, 'bench-admin', 'bench-admin-password'), jobs, CONCURRENCY, core.child.pid!);
  } finally {
    await stopAll([core]);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const profile = mainProfileIn(dir);
  return profile === null ? null : profileShares(profile, byJobStage);
}

export async function engineSection(jobs: number, profileDir: string | null = null): Promise<{ markdown: string; panels: Panel[]; readings: Reading[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iap-bench-engine-'));
  const core = await startCore(dataDir, null);
  try {
    const url = `http://127.0.0.1:${core.port}`;
    const token = await login(url, 'bench-admin', 'bench-admin-password');
    const r = await runEngineBench(url, token, jobs, CONCURRENCY, core.child.pid!);
    const memory = memoryOf(core.child.pid!);
    const loop = await runLoopBench(url, token, core.child.pid!, 6);
    await stopAll([core]);
    const shares = profileDir === null ? null : await profiledShares(join(profileDir, 'engine'), jobs);
    const date = new Date().toISOString().slice(0, 10);
    const readings: Reading[] = [
      { key: 'engine.jobs-per-second', subject: `${r.jobs} jobs, ${r.concurrency} starts in flight`, figure: r.jobsPerSecond, baseline: null, shown: r.jobsPerSecond.toFixed(0) },
      { key: 'engine.start-to-complete-p50', subject: `${r.latencyConcurrency} streams, ${r.latency.n} jobs`, figure: r.latency.p50, baseline: null, shown: `${ms(r.latency.p50)} (p99 ${ms(r.latency.p99)})` },
      { key: 'engine.ten-tasks-over-no-tasks-p50', figure: r.latency.p50, baseline: r.noTaskLatency.p50, shown: ms(r.latency.p50) },
      { key: 'engine.live-p99-looping', figure: loop.looping.p99, baseline: null, shown: `${ms(loop.looping.p99)} (idle ${ms(loop.idle.p99)})` },
    ];
    const markdown = [
      '<!-- bench:engine:start -->',
      '## Workflow engine: a 10-task automatic workflow (embedded SQLite store)',
      '',
      `Command: \`npm run bench\` (engine part: \`npm run bench -- --only engine --engine-jobs ${jobs}\`) · date ${date} · ${cpus().length} cores · Node ${process.version}`,
      '',
      'A real core process on a fresh store; jobs started over HTTP (`POST /operations-manager/jobs/start`), each a chain of ten automatic tasks (makeData, query, evaluation), every task writing its task document and the job its progress. Beside it, in the latency streams, a job of the same workflow shape with no task between its start and its end.',
      '',
      ...goalTable(readings.slice(0, 3)),
      '',
      `| start-to-complete, ${r.latencyConcurrency} streams alternating the two kinds | p50 ms | p99 ms |`,
      '|---|---:|---:|',
      `| ten-task job (${r.latency.n} jobs) | ${ms(r.latency.p50)} | ${ms(r.latency.p99)} |`,
      `| job with no tasks (${r.noTaskLatency.n} jobs) | ${ms(r.noTaskLatency.p50)} | ${ms(r.noTaskLatency.p99)} |`,
      '',
      `The throughput is the engine's steady state: the same ${r.jobs} jobs were first run once on the fresh core, as every other section warms its paths before it measures, and that run is not the goal's figure. Measured after it, all ${r.jobs} jobs completed in ${r.seconds.toFixed(1)} s; the core (all its threads) spent ${r.coreCpuPerJob.toFixed(0)} µs of CPU per job, the bench's client ${r.clientCpuPerJob.toFixed(0)} µs, on the same two cores. The run before it, on the core just started, its optimising compiler still at work, read ${r.cold.jobsPerSecond.toFixed(0)} jobs a second at ${r.cold.coreCpuPerJob.toFixed(0)} µs of the core's CPU per job. Core process memory after the run: RSS ${memory.rssMb.toFixed(0)} MB. Start-to-complete is measured by the client, from sending \`POST /jobs/start\` until it sees the job \`complete\` (in the start answer or by reading the job). Tasks without effects (all ten here) run inside the change that claims them, so a chain of them costs one commit; tasks with effects (delay, child jobs, the relay, transformations) run after their claim is committed.`,
      '',
      '### A job that loops',
      '',
      'On the same core afterwards: a job of two automatic tasks leading into each other (its task-run limit raised for the run), with `GET /health/live` probed every 20 ms while it loops, then cancelled.',
      '',
      '| figure | measured |',
      '|---|---:|',
      `| task runs per second of the loop (${loop.seconds.toFixed(1)} s) | ${loop.runsPerSecond.toFixed(0)} |`,
      `| \`/health/live\` p50 / p99 / max, core idle (${loop.idle.n} probes) | ${ms(loop.idle.p50)} / ${ms(loop.idle.p99)} / ${ms(loop.idle.max)} ms |`,
      `| \`/health/live\` p50 / p99 / max, while the job loops (${loop.looping.n} probes) | ${ms(loop.looping.p50)} / ${ms(loop.looping.p99)} / ${ms(loop.looping.max)} ms |`,
      `| core RSS before the loop → peak while it loops | ${loop.rssBeforeMb.toFixed(0)} → ${loop.rssPeakMb.toFixed(0)} MB |`,
      `| cancel answered after | ${ms(loop.cancelMs)} ms (${loop.runsAfterCancel} task runs after it) |`,
      '',
      ...goalTable(readings.slice(3)),
      ...(shares === null ? [] : ['', `Where the core's time went in the throughput runs (twice the same ${r.jobs} jobs, cold then warm, on a core of its own under \`--cpu-prof\`, after the figures above; each sample charged to the first kind any frame of its stack belongs to, \`scripts/bench/engine-profile.ts\`; idle time, start-up and the store's checkpoint thread left out):`, '', ...sharesTable(shares)]),
      '<!-- bench:engine:end -->',
    ].join('\n');
    const panels: Panel[] = [
      { section: 'engine', title: 'Engine: 10-task jobs completed per second', unit: 'jobs/s', better: 'higher', series: ['measured'], groups: [{ label: `${r.jobs} jobs, ${r.concurrency} in flight`, values: [r.jobsPerSecond] }], goal: goalLine('engine.jobs-per-second') },
      { section: 'engine', title: 'Engine: /health/live while a job loops', unit: 'ms', better: 'lower', series: ['idle', 'looping'], groups: [{ label: 'p50', values: [loop.idle.p50, loop.looping.p50] }, { label: 'p99', values: [loop.idle.p99, loop.looping.p99] }], goal: goalLine('engine.live-p99-looping') },
      { section: 'engine', title: 'Engine: start-to-complete latency', unit: 'ms', better: 'lower', series: ['ten tasks', 'no tasks'], groups: [{ label: 'p50', values: [r.latency.p50, r.noTaskLatency.p50] }, { label: 'p99', values: [r.latency.p99, r.noTaskLatency.p99] }], goal: goalLine('engine.start-to-complete-p50') },
    ];
    return { markdown, panels, readings };
  } finally {
    await stopAll([core]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
