/**
 * The core section of `npm run bench`: the core's hot paths, each beside its
 * floor in the same run — a bare Node program doing the same work on the
 * same store file (the same session lookup for the bearer token, the same
 * store read or write, the same bytes out; scripts/bench/floors/). Saturated
 * and at a moderate fixed rate, with the CPU each request costs the core and
 * its floor. With `--cpu-prof`, where the core's time went.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { login, runToEnd, startService } from './child.ts';
import type { Started } from './child.ts';
import { goalLine, goalTable } from './goals.ts';
import type { GoalKey, Reading } from './goals.ts';
import { moderateRate, moderateRounds, saturated, us } from './hot-path.ts';
import type { LoadResult, Target } from './hot-path.ts';
import type { Panel } from './plot.ts';
import { mainProfileIn, profileShares, sharesTable } from './profile-summary.ts';
import type { Share } from './profile-summary.ts';
import { profiling, stopAll } from './relay-section.ts';
import { ms } from './stats.ts';

const CONNECTIONS = 10;
const ROUNDS = 3;
const SEARCH = 'equals[status]=complete&sort=created&order=-1&limit=25';
/** A workflow from its start straight to its end: a job start is then the start's own work, no tasks. */
const START_TO_END = {
  name: 'bench-start',
  description: 'start to end',
  tasks: { workflow_start: { name: 'workflow_start', groups: [] }, workflow_end: { name: 'workflow_end', groups: [] } },
  transitions: { workflow_start: { workflow_end: { type: 'standard', state: 'success' } }, workflow_end: {} },
};

interface HotPath {
  readonly name: string;
  readonly floorScript: string;
  readonly goal: GoalKey;
  /** The same request, to the core and to the floor. */
  readonly path: string;
  readonly method: 'GET' | 'POST';
  readonly body?: string;
}

async function answer(url: string, token: string, path: HotPath): Promise<string> {
  const res = await fetch(`${url}${path.path}`, { method: path.method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(path.body === undefined ? {} : { body: path.body }) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path.name} at ${url} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

/** The keys of an answer, all levels down: a started job's bytes differ in its id and times only. */
function shape(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(shape).join(',')}]`;
  if (typeof value !== 'object' || value === null) return typeof value;
  return `{${Object.keys(value).map((k) => `${k}:${shape((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i += 1;
  return Math.max(0, i - 40);
}

/**
 * Where a core's time goes serving one path: a fresh core of its own under `--cpu-prof`, saturated as before.
 * Apart from the measured rows, whose CPU figures the profiler's own cost would raise.
 */
async function profiledShares(dir: string, env: Record<string, string>, measured: Target, seconds: number): Promise<Share[] | null> {
  mkdirSync(dir, { recursive: true });
  const core = await startService('core/src/main.ts', { ...env, CORE_PORT: '0' }, null, profiling(dir));
  try {
    const url = measured.url.replace(/^http:\/\/127\.0\.0\.1:\d+/, `http://127.0.0.1:${core.port}`);
    await saturated({ ...measured, name: `${measured.name} (profiled)`, url, pids: [core.child.pid!] }, seconds, CONNECTIONS);
  } finally {
    await stopAll([core]);
  }
  const profile = mainProfileIn(dir);
  return profile === null ? null : profileShares(profile);
}

interface Row {
  readonly path: HotPath;
  readonly load: readonly [LoadResult, LoadResult];
  readonly calm: readonly [LoadResult, LoadResult];
  readonly rate: number;
  /** Where the core's time went serving this path, when it was profiled. */
  readonly shares: Share[] | null;
}

export async function coreSection(seconds: number, profileDir: string | null): Promise<{ markdown: string; panels: Panel[]; readings: Reading[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iap-bench-core-'));
  const loadBefore = loadavg()[0]!;
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', MONGO_URL: '', ADMIN_USERNAME: 'bench-admin', ADMIN_PASSWORD: 'bench-admin-password' };
  await runToEnd(['scripts/seed.ts', '--jobs', '2000', '--data-dir', dataDir], { LOG_LEVEL: 'warn' });
  const started: Started[] = [];
  const rows: Row[] = [];
  try {
    // A core to prepare with: the session, the workflow, a started job for the floor's template.
    const setup = await startService('core/src/main.ts', { ...env, CORE_PORT: '0' });
    started.push(setup);
    const setupUrl = `http://127.0.0.1:${setup.port}`;
    const token = await login(setupUrl, 'bench-admin', 'bench-admin-password');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const saved = await fetch(`${setupUrl}/automation-studio/automations`, { method: 'POST', headers, body: JSON.stringify({ automation: START_TO_END }) });
    if (saved.status !== 200) throw new Error(`saving the start-to-end workflow failed with ${saved.status}`);
    const page = (await (await fetch(`${setupUrl}/operations-manager/jobs?limit=1&include=_id`, { headers })).json()) as { data: Array<{ _id: string }> };
    const startBody = JSON.stringify({ workflow: START_TO_END.name });
    const template = (JSON.parse(await answer(setupUrl, token, { name: 'job start', floorScript: '', goal: 'core.job-start-cpu', path: '/operations-manager/jobs/start', method: 'POST', body: startBody })) as { data: unknown }).data;
    await stopAll([setup]);
    const paths: HotPath[] = [
      { name: 'job read by id', floorScript: 'scripts/bench/floors/bare-job-read.ts', goal: 'core.job-read-cpu', path: `/operations-manager/jobs/${page.data[0]!._id}`, method: 'GET' },
      { name: 'search page (25 jobs, exact total)', floorScript: 'scripts/bench/floors/bare-search-page.ts', goal: 'core.search-page-cpu', path: `/operations-manager/jobs?${SEARCH}`, method: 'GET' },
      { name: 'job start (start to end)', floorScript: 'scripts/bench/floors/bare-job-start.ts', goal: 'core.job-start-cpu', path: '/operations-manager/jobs/start', method: 'POST', body: startBody },
    ];
    for (const [k, path] of paths.entries()) {
      const core = await startService('core/src/main.ts', { ...env, CORE_PORT: '0' });
      const floor = await startService(path.floorScript, { ...env, JOB_TEMPLATE: JSON.stringify(template) });
      started.push(core, floor);
      const coreUrl = `http://127.0.0.1:${core.port}`;
      const floorUrl = `http://127.0.0.1:${floor.port}`;
      const [ours, bare] = [await answer(coreUrl, token, path), await answer(floorUrl, token, path)];
      // The floor must do the same work: the same bytes (a start: the same shape, its id and times its own).
      const [a, b] = path.method === 'GET' ? [ours, bare] : [shape(JSON.parse(ours)), shape(JSON.parse(bare))];
      const at = firstDifference(a, b);
      if (a !== b) throw new Error(`${path.name}: the floor answers other bytes than the core, from ${at}: ${b.slice(at, at + 120)} against ${a.slice(at, at + 120)}`);
      const target = (name: string, url: string, pid: number): Target => ({ name, url: `${url}${path.path}`, method: path.method, headers, ...(path.body === undefined ? {} : { body: path.body }), pids: [pid] });
      const pair = [target(`${path.name}: the core`, coreUrl, core.child.pid!), target(`${path.name}: bare Node floor`, floorUrl, floor.child.pid!)] as const;
      for (const t of pair) await saturated(t, 2, CONNECTIONS);
      const load = [await saturated(pair[0], seconds, CONNECTIONS), await saturated(pair[1], seconds, CONNECTIONS)] as const;
      const rate = moderateRate(load);
      const calm = (await moderateRounds(pair, rate, seconds, ROUNDS)) as [LoadResult, LoadResult];
      await stopAll([core, floor]);
      rows.push({ path, load, calm, rate, shares: profileDir === null ? null : await profiledShares(join(profileDir, 'core', String(k + 1)), env, pair[0], seconds) });
    }
  } finally {
    await stopAll(started);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const readings: Reading[] = rows.map((r) => ({ key: r.path.goal, figure: r.load[0].cpu[0]!, baseline: r.load[1].cpu[0]! }));
  const date = new Date().toISOString().slice(0, 10);
  const markdown = [
    '<!-- bench:core:start -->',
    '## Core hot paths beside their floors',
    '',
    `Command: \`npm run bench -- --only core --seconds ${seconds}\` · date ${date} · ${cpus().length} cores · Node ${process.version} · load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end (other work on the machine shows in every figure; read the ratios)`,
    '',
    'A real core process on a store of 2,000 seeded jobs, and for each path a floor (`scripts/bench/floors/`): a bare `node:http` program on the same SQLite file doing the same work — the core\'s session lookup for the bearer token (the SHA-256 of the token read by id from `sessions` and kept for the core\'s 2 s window, as the core keeps it), the same store read (a job by id; the same search through the kernel\'s parser; the workflow by name, kept until its collection changes as the core keeps it, and one job written) and the same bytes out (checked before each row; a started job has the same shape, its id and times its own). No framework, validation, authorization rules, events, metrics or logging. The job start runs a workflow that goes from its start straight to its end.',
    '',
    `Saturated: autocannon, ${CONNECTIONS} connections, ${seconds} s per row after a 2 s warm-up. Moderate: both at a quarter of what the slower of the two sustains, ${ROUNDS} rounds interleaved, each figure the median (open loop, \`scripts/bench/paced.ts\`). CPU: what the serving process (all its threads) spent per answered request (\`/proc/<pid>/task/<tid>/schedstat\`).`,
    '',
    '| path | server | req/s | p50 ms | p99 ms | errors | CPU µs/req | moderate rate | p50 ms | p99 ms | CPU µs/req |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.flatMap((r) => [0, 1].map((i) => `| ${r.path.name} | ${i === 0 ? 'core' : 'bare Node floor'} | ${r.load[i]!.rps.toFixed(0)} | ${ms(r.load[i]!.p50)} | ${ms(r.load[i]!.p99)} | ${r.load[i]!.errors + r.calm[i]!.errors} | ${us(r.load[i]!.cpu[0])} | ${r.rate}/s | ${ms(r.calm[i]!.p50)} | ${ms(r.calm[i]!.p99)} | ${us(r.calm[i]!.cpu[0])} |`)),
    '',
    ...goalTable(readings),
    ...rows.flatMap((r) => (r.shares === null ? [] : ['', `Where the core's time went serving ${r.path.name}, saturated (a core of its own under \`--cpu-prof\`, run after the rows above so the profiler's cost is not in their figures; \`scripts/bench/profile-summary.ts\`; idle time and start-up left out):`, '', ...sharesTable(r.shares)])),
    '<!-- bench:core:end -->',
  ].join('\n');
  const short = rows.map((r) => r.path.name.replace(/ \(.*\)$/, ''));
  // Each path is judged against its own floor, so the chart shows the multiple; one line where the goals agree.
  const lines = rows.map((r) => goalLine(r.path.goal, 1));
  const line = lines.every((l) => l.value === lines[0]?.value && l.label === lines[0]?.label) ? lines[0] : undefined;
  const panels: Panel[] = [
    { section: 'core', title: 'Core: CPU per request over its floor\'s, saturated', unit: '× the floor', better: 'lower', series: ['core / floor'], groups: rows.map((r, i) => ({ label: short[i]!, values: [r.load[0].cpu[0]! / r.load[1].cpu[0]!] })), ...(line ? { goal: line } : {}) },
    { section: 'core', title: `Core: throughput, ${CONNECTIONS} connections`, unit: 'req/s', better: 'higher', series: ['bare Node floor', 'core'], groups: rows.map((r, i) => ({ label: short[i]!, values: [r.load[1].rps, r.load[0].rps] })) },
  ];
  return { markdown, panels, readings };
}
