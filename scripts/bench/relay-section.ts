/**
 * The relay section of `npm run bench`: a restQuery through the core's relay
 * beside its floor (a bare Node relay, floors/bare-relay.ts) and the same
 * RESTCONF GET sent to the orchestrator stand-in directly. All are real
 * processes. Saturated (autocannon) and at a moderate fixed rate (paced),
 * with the CPU each request costs the relay and the stand-in; and one call at
 * a time with sub-millisecond resolution, for the p50 the relay adds.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { login, startService } from './child.ts';
import type { Started } from './child.ts';
import { goalLine, goalTable } from './goals.ts';
import type { Reading } from './goals.ts';
import { moderateRate, moderateRounds, saturated, us } from './hot-path.ts';
import type { LoadResult, Target } from './hot-path.ts';
import { mainProfileIn, profileShares, sharesTable } from './profile-summary.ts';
import { ms, summarize, timeRuns } from './stats.ts';
import type { Panel } from './plot.ts';
import type { Summary } from './stats.ts';

const NSO_USER = 'bench-nso';
const NSO_PASSWORD = 'bench-nso-password';
const ADAPTER = 'Bench NSO';
const PATH = '/restconf/data/tailf-ncs:devices/device=ce0';
const ACCEPT = 'application/yang-data+json';

/** The stand-in in its own process, so autocannon's work does not slow its answers. */
function startSim(): Promise<Started> {
  const module = pathToFileURL(resolve('tools/nso-sim/server.ts')).href;
  const code = `const { startNsoSim } = await import(${JSON.stringify(module)});
const sim = await startNsoSim({ port: 0, username: ${JSON.stringify(NSO_USER)}, password: ${JSON.stringify(NSO_PASSWORD)}, seed: true });
console.log('nso-sim listening on port ' + new URL(sim.url).port);
process.on('SIGTERM', () => sim.close().then(() => process.exit(0)));`;
  return new Promise((resolveStart, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /listening on port (\d+)/.exec(buffer);
      if (match) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolveStart({ child, port: Number(match[1]) });
      }
    });
    child.on('exit', (code) => reject(new Error(`nso-sim exited with ${code} before listening`)));
  });
}

async function fetchOk(target: Target): Promise<string> {
  const res = await fetch(target.url, { method: target.method, headers: target.headers, ...(target.body === undefined ? {} : { body: target.body }) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${target.name} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

/** One call at a time, the targets taking turns so that drift in the machine's load hits all alike. */
async function sequential(targets: readonly Target[], runs: number): Promise<Summary[]> {
  const samples: number[][] = targets.map(() => []);
  const all = await timeRuns(runs * targets.length, 100, (i) => fetchOk(targets[i % targets.length]!).then(() => undefined));
  all.forEach((sample, i) => samples[i % targets.length]!.push(sample));
  return samples.map(summarize);
}

/** Node's arguments for a process to profile: a V8 CPU profile is written into `dir` when it exits. */
export function profiling(dir: string | null): string[] {
  return dir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

/** Stops processes and waits for them to exit (a profiled one writes its profile then). */
export async function stopAll(started: ReadonlyArray<Started | null>): Promise<void> {
  const live = started.filter((p): p is Started => p !== null && p.child.exitCode === null);
  const exited = live.map((p) => new Promise((r) => p.child.once('exit', r)));
  for (const p of live) p.child.kill('SIGTERM');
  await Promise.race([Promise.all(exited), new Promise((r) => setTimeout(r, 10_000))]);
}

const ROUNDS = 3;
const CONNECTIONS = 10;

export async function relaySection(seconds: number, profileDir: string | null): Promise<{ markdown: string; panels: Panel[]; readings: Reading[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iap-bench-relay-'));
  const loadBefore = loadavg()[0]!;
  const sim = await startSim();
  const simUrl = `http://127.0.0.1:${sim.port}`;
  const adapters = [{ name: ADAPTER, type: 'nso', baseUrl: simUrl, credentials: { username: NSO_USER, password: NSO_PASSWORD }, timeoutMs: 10000 }];
  const env = { DATA_DIR: dataDir, CORE_PORT: '0', LOG_LEVEL: 'info', MONGO_URL: '', ADMIN_USERNAME: 'bench-admin', ADMIN_PASSWORD: 'bench-admin-password', ADAPTERS: JSON.stringify(adapters) };
  let core: Started | null = null;
  let bare: Started | null = null;
  try {
    core = await startService('core/src/main.ts', env);
    bare = await startService('scripts/bench/floors/bare-relay.ts', { TARGET: simUrl, USERNAME: NSO_USER, PASSWORD: NSO_PASSWORD });
    const coreUrl = `http://127.0.0.1:${core.port}`;
    const token = await login(coreUrl, 'bench-admin', 'bench-admin-password');
    const query = JSON.stringify({ params: { path: PATH, accept: ACCEPT } });
    const simPid = sim.child.pid!;
    const direct: Target = {
      name: 'stand-in direct (GET)',
      url: `${simUrl}${PATH}`,
      method: 'GET',
      headers: { accept: ACCEPT, authorization: `Basic ${Buffer.from(`${NSO_USER}:${NSO_PASSWORD}`).toString('base64')}` },
      pids: [simPid],
    };
    const floor: Target = {
      name: 'bare Node relay (the floor)',
      url: `http://127.0.0.1:${bare.port}/orchestrator_manager/restQuery/${encodeURIComponent(ADAPTER)}`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: query,
      pids: [bare.child.pid!, simPid],
    };
    const relay: Target = {
      name: 'through the relay (restQuery)',
      url: `${coreUrl}/orchestrator_manager/restQuery/${encodeURIComponent(ADAPTER)}`,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: query,
      pids: [core.child.pid!, simPid],
    };
    await fetchOk(direct);
    const [floorAnswer, relayAnswer] = [await fetchOk(floor), await fetchOk(relay)];
    if (floorAnswer !== relayAnswer) throw new Error(`the bare relay answers other bytes than the relay: ${floorAnswer.slice(0, 120)} against ${relayAnswer.slice(0, 120)}`);
    const targets = [direct, floor, relay] as const;
    // Every path warmed alike before anything is timed: a few dozen calls leave the core's larger code partly
    // unoptimised by V8, which the one-call p50 then charged to the relay rather than to a cold start.
    for (const t of targets) await saturated(t, 2, CONNECTIONS);
    const runs = Math.max(500, seconds * 150);
    const [directSeq, floorSeq, relaySeq] = (await sequential(targets, runs)) as [Summary, Summary, Summary];
    console.log(`sequential p50: direct ${ms(directSeq.p50)} ms, bare relay ${ms(floorSeq.p50)} ms, relay ${ms(relaySeq.p50)} ms`);
    const loads: LoadResult[] = [];
    for (const t of targets) loads.push(await saturated(t, seconds, CONNECTIONS));
    const rate = moderateRate(loads);
    const calm = await moderateRounds(targets, rate, seconds, ROUNDS);
    const [, floorLoad, relayLoad] = loads as [LoadResult, LoadResult, LoadResult];
    const [, floorCalm, relayCalm] = calm as [LoadResult, LoadResult, LoadResult];
    await stopAll([core]);
    // Where a relay call's time goes: a core of its own under --cpu-prof, apart from the rows, whose CPU figures
    // the profiler's own cost would raise.
    let profile = null;
    if (profileDir !== null) {
      const into = join(profileDir, 'relay');
      mkdirSync(into, { recursive: true });
      core = await startService('core/src/main.ts', env, null, profiling(into));
      await saturated({ ...relay, name: `${relay.name} (profiled)`, url: relay.url.replace(/:\d+\//, `:${core.port}/`), pids: [core.child.pid!] }, seconds, CONNECTIONS);
      await stopAll([core]);
      profile = mainProfileIn(into);
    }
    const readings: Reading[] = [
      { key: 'relay.throughput', figure: relayLoad.rps, baseline: floorLoad.rps, shown: relayLoad.rps.toFixed(0), baselineShown: floorLoad.rps.toFixed(0) },
      { key: 'relay.p50-added', figure: relaySeq.p50, baseline: floorSeq.p50, shown: `${ms(relaySeq.p50)} (the stand-in directly: ${ms(directSeq.p50)})` },
    ];
    const date = new Date().toISOString().slice(0, 10);
    // The direct row has one process, the stand-in.
    const cpuRow = (r: LoadResult): string => (r.cpu.length === 1 ? `– | ${us(r.cpu[0])}` : `${us(r.cpu[0])} | ${us(r.cpu[1])}`);
    const markdown = [
      '<!-- bench:relay:start -->',
      '## Orchestrator relay: restQuery through the core beside a bare Node relay',
      '',
      `Command: \`npm run bench\` (relay part: \`npm run bench -- --only relay --seconds ${seconds}\`) · date ${date} · ${cpus().length} cores · Node ${process.version} · load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end (other work on the machine shows in every figure; read the ratios)`,
      '',
      `The orchestrator stand-in (tools/nso-sim), the core and the floor run as separate processes on this machine. Direct: \`GET ${PATH}\` to the stand-in with Basic credentials and \`Accept: ${ACCEPT}\` (one device, about 1 KB of JSON). Relay: \`POST /orchestrator_manager/restQuery/:adapterId\` to the core with a bearer token, which authenticates the caller, validates the body, sends that same GET to the stand-in over a kept-alive connection and answers \`{instance_data}\`. The floor (\`scripts/bench/floors/bare-relay.ts\`): a bare \`node:http\` server taking the same body, authenticating nothing, sending the same GET on a kept-alive agent with Basic credentials and answering the same bytes (checked before the run).`,
      '',
      `One call at a time: ${runs} calls per path, the paths taking turns, after each path's 2 s saturated warm-up and 100 more calls; ms with sub-millisecond resolution.`,
      '',
      '| path | p50 ms | p99 ms | max ms |',
      '|---|---:|---:|---:|',
      ...targets.map((t, i) => {
        const s = [directSeq, floorSeq, relaySeq][i]!;
        return `| ${t.name} | ${ms(s.p50)} | ${ms(s.p99)} | ${ms(s.max)} |`;
      }),
      '',
      `Saturated: autocannon, ${CONNECTIONS} connections, ${seconds} s per row after a 2 s warm-up (autocannon reports whole milliseconds). CPU: what the process in the path (the stand-in itself for the direct row) and the stand-in spent per answered request (\`/proc/<pid>/task/<tid>/schedstat\`).`,
      '',
      '| path | req/s | p50 ms | p99 ms | errors | relay CPU µs/req | stand-in CPU µs/req |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...loads.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} | ${cpuRow(r)} |`),
      '',
      `At a moderate rate: every path at ${rate} requests/s (a quarter of what the slowest sustains) for ${seconds} s, ${ROUNDS} rounds with the paths interleaved, each figure the median of a path's rounds; open loop, timed from each request's scheduled send (\`scripts/bench/paced.ts\`).`,
      '',
      '| path | p50 ms | p99 ms | errors | relay CPU µs/req | stand-in CPU µs/req |',
      '|---|---:|---:|---:|---:|---:|',
      ...calm.map((r) => `| ${r.name} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} | ${cpuRow(r)} |`),
      '',
      ...goalTable(readings),
      '',
      `The relay's CPU per request is ${(relayLoad.cpu[0]! / floorLoad.cpu[0]!).toFixed(1)}× the floor's saturated and ${(relayCalm.cpu[0]! / floorCalm.cpu[0]!).toFixed(1)}× at ${rate} req/s; docs/relay.md ("What a relay call costs") says where the rest goes.`,
      ...(profile === null ? [] : ['', 'Where a relay call\'s time went in the core, saturated (a core of its own under `--cpu-prof`, run after the rows above so the profiler\'s cost is not in their figures; `scripts/bench/profile-summary.ts`; idle time and start-up left out):', '', ...sharesTable(profileShares(profile))]),
      '<!-- bench:relay:end -->',
    ].join('\n');
    const short = ['stand-in direct', 'bare Node relay', 'through the relay'];
    const panels: Panel[] = [
      { section: 'relay', title: 'Orchestrator relay: restQuery, one call at a time', unit: 'ms', better: 'lower', series: ['p50', 'p99'], groups: [directSeq, floorSeq, relaySeq].map((s, i) => ({ label: short[i]!, values: [s.p50, s.p99] })), goal: goalLine('relay.p50-added', floorSeq.p50) },
      { section: 'relay', title: `Orchestrator relay: throughput, ${CONNECTIONS} connections`, unit: 'req/s', better: 'higher', series: ['req/s'], groups: loads.map((r, i) => ({ label: short[i]!, values: [r.rps] })), goal: goalLine('relay.throughput', floorLoad.rps) },
      { section: 'relay', title: 'Orchestrator relay: CPU per request, saturated', unit: 'µs', better: 'lower', series: ['relay', 'stand-in'], groups: loads.slice(1).map((r, i) => ({ label: short[i + 1]!, values: [r.cpu[0]!, r.cpu[1]!] })) },
    ];
    return { markdown, panels, readings };
  } finally {
    await stopAll([bare, core, sim]);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
