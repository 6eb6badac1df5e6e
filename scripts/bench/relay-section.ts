/**
 * The relay section of `npm run bench`: a restQuery through the core's relay
 * beside the same RESTCONF GET sent to the orchestrator stand-in directly.
 * The stand-in and the core are real processes; autocannon gives throughput
 * and its (whole-millisecond) percentiles, and a sequential timed run with
 * sub-millisecond resolution gives the p50 the goal is judged on.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { login, startService } from './child.ts';
import type { Started } from './child.ts';
import { ms, summarize, timeRuns } from './stats.ts';
import type { Panel } from './plot.ts';
import type { Goal } from './summary.ts';
import type { Summary } from './stats.ts';

const NSO_USER = 'bench-nso';
const NSO_PASSWORD = 'bench-nso-password';
const ADAPTER = 'Bench NSO';
const PATH = '/restconf/data/tailf-ncs:devices/device=ce0';
const ACCEPT = 'application/yang-data+json';
const CONNECTIONS = 10;

interface Target {
  readonly name: string;
  readonly url: string;
  readonly init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };
}

interface Load {
  readonly name: string;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
}

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

async function load(target: Target, seconds: number): Promise<Load> {
  const result = await autocannon({ url: target.url, connections: CONNECTIONS, duration: seconds, ...target.init });
  const errors = result.errors + result.timeouts + result.non2xx;
  console.log(`${target.name}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, errors ${errors}`);
  return { name: target.name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors };
}

async function fetchOk(target: Target): Promise<void> {
  const res = await fetch(target.url, target.init);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${target.name} answered ${res.status}: ${text.slice(0, 200)}`);
}

/** One call at a time, the two targets alternating so that drift in the machine's load hits both alike. */
async function sequential(direct: Target, relay: Target, runs: number): Promise<[Summary, Summary]> {
  const samples: [number[], number[]] = [[], []];
  const all = await timeRuns(runs * 2, 100, (i) => fetchOk(i % 2 === 0 ? direct : relay));
  all.forEach((sample, i) => samples[i % 2]!.push(sample));
  return [summarize(samples[0]), summarize(samples[1])];
}

export async function relaySection(seconds: number): Promise<{ markdown: string; panels: Panel[]; goals: Goal[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'iap-bench-relay-'));
  const sim = await startSim();
  const simUrl = `http://127.0.0.1:${sim.port}`;
  const adapters = [{ name: ADAPTER, type: 'nso', baseUrl: simUrl, credentials: { username: NSO_USER, password: NSO_PASSWORD }, timeoutMs: 10000 }];
  const env = { DATA_DIR: dataDir, CORE_PORT: '0', LOG_LEVEL: 'info', MONGO_URL: '', ADMIN_USERNAME: 'bench-admin', ADMIN_PASSWORD: 'bench-admin-password', ADAPTERS: JSON.stringify(adapters) };
  let core: Started | null = null;
  try {
    core = await startService('core/src/main.ts', env);
    const coreUrl = `http://127.0.0.1:${core.port}`;
    const token = await login(coreUrl, 'bench-admin', 'bench-admin-password');
    const direct: Target = {
      name: 'stand-in direct (GET)',
      url: `${simUrl}${PATH}`,
      init: { method: 'GET', headers: { accept: ACCEPT, authorization: `Basic ${Buffer.from(`${NSO_USER}:${NSO_PASSWORD}`).toString('base64')}` } },
    };
    const relay: Target = {
      name: 'through the relay (restQuery)',
      url: `${coreUrl}/orchestrator_manager/restQuery/${encodeURIComponent(ADAPTER)}`,
      init: { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ params: { path: PATH, accept: ACCEPT } }) },
    };
    await fetchOk(direct);
    await fetchOk(relay);
    const runs = Math.max(500, seconds * 150);
    const [directSeq, relaySeq] = await sequential(direct, relay, runs);
    console.log(`sequential p50: direct ${ms(directSeq.p50)} ms, relay ${ms(relaySeq.p50)} ms`);
    for (const target of [direct, relay]) await load(target, 2);
    const loads = [await load(direct, seconds), await load(relay, seconds)] as const;
    const added = relaySeq.p50 - directSeq.p50;
    const date = new Date().toISOString().slice(0, 10);
    const markdown = [
      '<!-- bench:relay:start -->',
      '## Orchestrator relay: restQuery through the core against the orchestrator directly',
      '',
      `Command: \`npm run bench\` (relay part: \`npm run bench -- --only relay --seconds ${seconds}\`) · date ${date} · ${cpus().length} cores · Node ${process.version}`,
      '',
      `The orchestrator stand-in (tools/nso-sim) and the core run as separate processes on this machine. Direct: \`GET ${PATH}\` to the stand-in with Basic credentials and \`Accept: ${ACCEPT}\` (one device, about 1 KB of JSON). Relay: \`POST /orchestrator_manager/restQuery/:adapterId\` to the core with a bearer token, which validates the body, sends that same GET to the stand-in over a kept-alive connection and answers \`{instance_data}\`.`,
      '',
      `Sequential: ${runs} calls per path, one at a time, the two paths alternating, after 100 warm-up calls; times in ms with sub-millisecond resolution (the goal is judged on these).`,
      '',
      '| path | p50 ms | p99 ms | max ms |',
      '|---|---:|---:|---:|',
      `| ${direct.name} | ${ms(directSeq.p50)} | ${ms(directSeq.p99)} | ${ms(directSeq.max)} |`,
      `| ${relay.name} | ${ms(relaySeq.p50)} | ${ms(relaySeq.p99)} | ${ms(relaySeq.max)} |`,
      '',
      `Under load: autocannon, ${CONNECTIONS} connections, ${seconds} s per row after a 2 s warm-up (autocannon reports whole milliseconds).`,
      '',
      '| path | req/s | p50 ms | p99 ms | errors |',
      '|---|---:|---:|---:|---:|',
      ...loads.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.errors} |`),
      '',
      '| goal | measured | |',
      '|---|---|---|',
      `| relay adds under 2 ms at p50 (sequential) | ${added.toFixed(2)} ms | ${added < 2 ? 'met' : 'missed'} |`,
      '<!-- bench:relay:end -->',
    ].join('\n');
    const panels: Panel[] = [
      { section: 'relay', title: 'Orchestrator relay: restQuery, one call at a time', unit: 'ms', better: 'lower', series: ['p50', 'p99'], groups: [{ label: 'stand-in direct', values: [directSeq.p50, directSeq.p99] }, { label: 'through the relay', values: [relaySeq.p50, relaySeq.p99] }], goal: { value: directSeq.p50 + 2, label: 'goal: p50 under direct + 2 ms' } },
    ];
    const goals: Goal[] = [
      { section: 'relay', figure: 'restQuery p50 ms, one call at a time', baseline: `the stand-in called directly ${ms(directSeq.p50)}`, measured: `${ms(relaySeq.p50)} (+${added.toFixed(2)})`, goal: 'under 2 ms added', met: added < 2 },
    ];
    return { markdown, panels, goals };
  } finally {
    for (const p of [core, sim]) p?.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
