/**
 * `npm run load`: the load and soak run. A real core (fresh embedded store,
 * seeded) and a real gateway in front of it, driven by autocannon with
 * 1,000 connections for a fixed time with a mix of searches, job starts,
 * control actions and legacy calls; memory of both processes sampled
 * throughout. Fails (exit 1) on any error, on memory growth, or when a
 * service dies. Figures go to RELIABILITY.md's load section.
 *
 *   npm run load -- [--seconds 300] [--connections 1000] [--gateway-share 0.5] [--jobs 20000]
 *                   [--timeout 35] [--sample-seconds 2] [--data-dir .load-data] [--keep-data] [--no-write]
 */
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { drive } from './load/drive.ts';
import { judge, MemorySampler, PAGE_CACHE_MB } from './load/memory.ts';
import type { Sample } from './load/memory.ts';
import { approvalWorkflow, sequences } from './load/mix.ts';
import { preflight } from './load/preflight.ts';
import { startRig } from './load/processes.ts';
import type { Service } from './load/processes.ts';
import { consoleSummary, markdownSection } from './load/report.ts';
import type { ServiceMemory } from './load/report.ts';
import { Tally } from './load/tally.ts';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '300' },
    connections: { type: 'string', default: '1000' },
    'gateway-share': { type: 'string', default: '0.5' },
    jobs: { type: 'string', default: '20000' },
    timeout: { type: 'string', default: '35' },
    'sample-seconds': { type: 'string', default: '2' },
    'data-dir': { type: 'string', default: '.load-data' },
    'keep-data': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
  },
});
const seconds = Number(args.seconds);
const connections = Number(args.connections);
const gatewayShare = Number(args['gateway-share']);
const jobs = Number(args.jobs);
const timeoutSeconds = Number(args.timeout);
const sampleSeconds = Number(args['sample-seconds']);
if (!Number.isSafeInteger(seconds) || seconds < 5 || !Number.isSafeInteger(connections) || connections < 2 || !(gatewayShare >= 0 && gatewayShare <= 1) || !Number.isSafeInteger(jobs) || jobs < 100 || !(timeoutSeconds >= 1) || !(sampleSeconds >= 0.5)) {
  console.error('usage: npm run load -- [--seconds N>=5] [--connections N>=2] [--gateway-share 0..1] [--jobs N>=100] [--timeout S] [--sample-seconds S>=0.5] [--data-dir DIR] [--keep-data] [--no-write]');
  process.exit(2);
}
const gatewayConnections = Math.round(connections * gatewayShare);
const coreConnections = connections - gatewayConnections;
const WARMUP_SHARE = 0.2;
const HEAP_BUCKET_SECONDS = 20;
const MIN_JUDGED_SECONDS = 60;
const IDLE_SECONDS = 10;
const dataDir = resolve(args['data-dir']!);
const command = `npm run load${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;

function storeSizes(): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const file of ['iap.sqlite', 'iap.sqlite-wal', 'gateway.sqlite', 'gateway.sqlite-wal']) {
    const path = resolve(dataDir, file);
    if (existsSync(path)) sizes[file] = statSync(path).size / 1024 / 1024;
  }
  return sizes;
}

async function countJobs(coreUrl: string, token: string): Promise<number> {
  const res = await fetch(`${coreUrl}/operations-manager/jobs?limit=0`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { metadata: { total: number } }).metadata.total;
}

rmSync(dataDir, { recursive: true, force: true });
console.log(`seeding ${jobs} jobs into ${dataDir} and starting the core and the gateway…`);
const rig = await startRig(dataDir, jobs);
let exitCode = 1;
try {
  const created = await fetch(`${rig.core.url}/automation-studio/automations`, { method: 'POST', headers: { authorization: `Bearer ${rig.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ automation: approvalWorkflow() }) });
  if (created.status !== 200) throw new Error(`workflow not created: ${created.status} ${await created.text()}`);
  await preflight(rig.core.url, rig.token, sequences.core);
  await preflight(rig.gateway.url, rig.token, sequences.gateway);
  const jobsBefore = await countJobs(rig.core.url, rig.token);
  const storeBefore = storeSizes();

  const tally = new Tally(5);
  let loadStartedAt = performance.now();
  const services: readonly Service[] = [rig.core, rig.gateway];
  const sampler = new MemorySampler(services, () => loadStartedAt);
  await sampler.sampleOnce();
  const before = new Map(services.map((s) => [s.name, sampler.samples.get(s.name)![0]!]));
  for (const s of services) sampler.samples.get(s.name)!.length = 0;

  console.log(`load: ${coreConnections} connections to the core, ${gatewayConnections} to the gateway, for ${seconds} s`);
  const generatorCpu = process.cpuUsage();
  loadStartedAt = performance.now();
  tally.start();
  sampler.start(sampleSeconds);
  const progress = setInterval(() => {
    const t = tally.total();
    console.log(`  ${tally.seconds.toFixed(0)} s: ${t.answered} answered, ${t.errors} errors`);
  }, 30_000);
  const runs = [
    ...(coreConnections > 0 ? [drive({ target: 'core', url: rig.core.url, token: rig.token, connections: coreConnections, seconds, timeoutSeconds, sequence: sequences.core, tally })] : []),
    ...(gatewayConnections > 0 ? [drive({ target: 'gateway', url: rig.gateway.url, token: rig.token, connections: gatewayConnections, seconds, timeoutSeconds, sequence: sequences.gateway, tally })] : []),
  ];
  await Promise.all(runs);
  tally.stop();
  clearInterval(progress);
  const generator = process.cpuUsage(generatorCpu);
  const loadSeconds = tally.seconds;
  await sampler.stop();
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  await sampler.sampleOnce();

  const warmupEnd = loadSeconds * WARMUP_SHARE;
  const judged = loadSeconds - warmupEnd >= MIN_JUDGED_SECONDS;
  const storeAfter = storeSizes();
  const storeFile = { core: 'iap.sqlite', gateway: 'gateway.sqlite' } as const;
  const memory: ServiceMemory[] = services.map((s) => {
    const all = sampler.samples.get(s.name)!;
    const during = all.filter((x: Sample) => x.at <= loadSeconds);
    const after = all[all.length - 1]!;
    const first = before.get(s.name)!;
    const lastDuring = during[during.length - 1] ?? after;
    return {
      name: s.name,
      before: first,
      after,
      verdict: judge(during, warmupEnd, loadSeconds, HEAP_BUCKET_SECONDS, Math.min(PAGE_CACHE_MB, storeAfter[storeFile[s.name]] ?? 0)),
      judged,
      samples: during,
      cpuShare: (lastDuring.cpuMicros - first.cpuMicros) / 1e6 / Math.max(lastDuring.at, 1),
      logged: s.logged,
    };
  });

  const failures: string[] = [];
  if (tally.errors > 0) failures.push(`${tally.errors} errors`);
  for (const s of services) if (s.child.exitCode !== null || s.child.signalCode !== null) failures.push(`the ${s.name} stopped`);
  for (const m of memory) {
    if (!m.judged) continue;
    if (!m.verdict.rss.ok) failures.push(`${m.name} resident memory grew ${m.verdict.rss.growth.toFixed(0)} MB`);
    if (!m.verdict.heap) failures.push(`${m.name} heap not sampled`);
    else if (!m.verdict.heap.ok) failures.push(`${m.name} heap floor grew ${m.verdict.heap.growth.toFixed(0)} MB`);
  }
  const report = {
    command,
    connections: { core: coreConnections, gateway: gatewayConnections },
    seconds,
    timeoutSeconds,
    seededJobs: jobs,
    kinds: tally.figures(),
    totals: [tally.total('core'), tally.total('gateway'), tally.total()],
    series: tally.series(),
    memory,
    storeMb: { before: storeBefore, after: storeAfter },
    jobsStarted: (await countJobs(rig.core.url, rig.token)) - jobsBefore,
    generatorCpuShare: (generator.user + generator.system) / 1e6 / loadSeconds,
    warmupSeconds: Math.round(warmupEnd),
    failures,
  };
  console.log(consoleSummary(report));
  if (!args['no-write']) {
    const file = resolve('RELIABILITY.md');
    const current = readFileSync(file, 'utf8');
    const pattern = /<!-- load:start -->[\s\S]*<!-- load:end -->/;
    if (!pattern.test(current)) throw new Error('RELIABILITY.md has no load section markers');
    writeFileSync(file, current.replace(pattern, () => markdownSection(report)));
    console.log('written to RELIABILITY.md (load section)');
  }
  exitCode = failures.length === 0 ? 0 : 1;
} finally {
  await rig.stop();
  if (!args['keep-data']) rmSync(dataDir, { recursive: true, force: true });
}
process.exit(exitCode);
