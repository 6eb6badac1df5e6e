/**
 * The load run's summary: a console table while trying things, and the
 * RELIABILITY.md section (markdown) with the command, the date, what ran,
 * the figures and how memory growth is judged.
 */
import { cpus } from 'node:os';
import { ms } from '../bench/stats.ts';
import type { Sample, Verdict } from './memory.ts';
import type { KindFigures, Window } from './tally.ts';

export interface ServiceMemory {
  readonly name: string;
  readonly before: Sample;
  readonly after: Sample;
  readonly verdict: Verdict;
  readonly judged: boolean;
  readonly samples: readonly Sample[];
  /** CPU the process used while the load ran, as a share of one core. */
  readonly cpuShare: number;
  readonly logged: { warn: number; error: number };
}

export interface RunReport {
  readonly command: string;
  readonly connections: { core: number; gateway: number };
  readonly seconds: number;
  readonly timeoutSeconds: number;
  readonly seededJobs: number;
  readonly kinds: readonly KindFigures[];
  readonly totals: readonly KindFigures[];
  readonly series: readonly Window[];
  readonly memory: readonly ServiceMemory[];
  readonly storeMb: { before: Record<string, number>; after: Record<string, number> };
  readonly jobsStarted: number;
  readonly generatorCpuShare: number;
  readonly warmupSeconds: number;
  readonly failures: readonly string[];
}

const mb = (n: number | null | undefined): string => (n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(0));
const signed = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`;
const count = (n: number): string => n.toLocaleString('en-US');

function kindRow(k: KindFigures): string {
  return `| ${k.target} | ${k.kind} | ${count(k.answered)} | ${k.errors} | ${k.perSecond.toFixed(1)} | ${ms(k.p50)} | ${ms(k.p90)} | ${ms(k.p99)} | ${ms(k.max)} |`;
}

function memoryRows(m: readonly ServiceMemory[]): string[] {
  return m.map((s) => {
    const v = s.verdict;
    const heap = v.heap ? `${mb(v.heap.first)} → ${mb(v.heap.last)} (peak ${mb(v.heap.peak)}) | ${signed(v.heap.growth)} (limit ${v.heap.limit.toFixed(0)})` : '– | –';
    const verdict = !s.judged ? 'not judged (run too short)' : v.rss.ok && v.heap?.ok ? 'no growth' : 'GROWTH';
    return `| ${s.name} | ${mb(s.before.rssMb)} / ${mb(s.before.heapMb)} | ${mb(v.rss.first)} → ${mb(v.rss.last)} (peak ${mb(v.rss.peak)}) | ${signed(v.rss.growth)} (limit ${v.rss.limit.toFixed(0)}) | ${heap} | ${mb(s.after.rssMb)} / ${mb(s.after.heapMb)} | ${(s.cpuShare * 100).toFixed(0)}% | ${verdict} |`;
  });
}

/** One row per minute (or per window for short runs): throughput, errors, p99, and each process's memory. */
function seriesRows(r: RunReport): string[] {
  const step = r.seconds >= 120 ? 60 : Math.max(5, r.series[1]?.from ?? 10);
  const rows: string[] = [];
  for (let from = 0; from < r.seconds; from += step) {
    const windows = r.series.filter((w) => w.from >= from && w.from < from + step);
    const answered = windows.reduce((n, w) => n + w.answered, 0);
    const errors = windows.reduce((n, w) => n + w.errors, 0);
    const p99 = Math.max(...windows.map((w) => (Number.isNaN(w.p99) ? 0 : w.p99)));
    const mem = r.memory.map((m) => {
      const inWindow = m.samples.filter((s) => s.at >= from && s.at < from + step);
      const last = inWindow[inWindow.length - 1];
      const floor = Math.min(...inWindow.filter((s) => s.heapMb !== null).map((s) => s.heapMb!));
      return `${mb(last?.rssMb)} | ${Number.isFinite(floor) ? mb(floor) : '–'}`;
    });
    rows.push(`| ${from}–${Math.min(from + step, r.seconds)} s | ${(answered / step).toFixed(0)} | ${errors} | ${ms(p99)} | ${mem.join(' | ')} |`);
  }
  return rows;
}

export function consoleSummary(r: RunReport): string {
  const lines = ['', `${r.command}: ${r.connections.core} connections to the core, ${r.connections.gateway} to the gateway, ${r.seconds} s`, ''];
  lines.push('target  kind                                        answered  errors    req/s    p50    p90    p99    max (ms)');
  for (const k of [...r.kinds, ...r.totals]) {
    lines.push(`${k.target.padEnd(8)}${k.kind.padEnd(44)}${count(k.answered).padStart(8)}${String(k.errors).padStart(8)}${k.perSecond.toFixed(1).padStart(9)}${ms(k.p50).padStart(7)}${ms(k.p90).padStart(7)}${ms(k.p99).padStart(7)}${ms(k.max).padStart(8)}`);
    for (const reason of k.reasons) lines.push(`          ${reason.count}× ${reason.reason}`);
  }
  lines.push('');
  for (const m of r.memory) {
    const v = m.verdict;
    lines.push(`${m.name}: RSS ${mb(v.rss.first)} → ${mb(v.rss.last)} MB (peak ${mb(v.rss.peak)}, fitted ${signed(v.rss.growth)} MB), heap floor ${mb(v.heap?.first)} → ${mb(v.heap?.last)} MB (fitted ${v.heap ? signed(v.heap.growth) : '–'} MB), after idle RSS ${mb(m.after.rssMb)} heap ${mb(m.after.heapMb)}, CPU ${(m.cpuShare * 100).toFixed(0)}%, log warnings ${m.logged.warn} errors ${m.logged.error}${m.judged ? '' : ' (memory not judged: run too short)'}`);
  }
  lines.push('window   req/s  errors   p99 ms');
  for (const w of r.series) lines.push(`${String(w.from).padStart(4)} s ${(w.answered / (r.series[1]?.from ?? 1)).toFixed(0).padStart(7)}${String(w.errors).padStart(8)}${ms(w.p99).padStart(9)}`);
  lines.push(`store files, MB: ${Object.keys(r.storeMb.after).map((f) => `${f} ${mb(r.storeMb.before[f] ?? 0)} → ${mb(r.storeMb.after[f])}`).join(', ')}`);
  lines.push(`load generator CPU ${(r.generatorCpuShare * 100).toFixed(0)}%; jobs started ${count(r.jobsStarted)}`);
  lines.push(r.failures.length === 0 ? 'PASS' : `FAIL: ${r.failures.join('; ')}`);
  return lines.join('\n');
}

export function markdownSection(r: RunReport): string {
  const date = new Date().toISOString().slice(0, 10);
  const stores = Object.keys(r.storeMb.after).map((f) => `\`${f}\` ${mb(r.storeMb.before[f] ?? 0)} → ${mb(r.storeMb.after[f])} MB`).join(', ');
  return [
    '<!-- load:start -->',
    '## Load and soak (`npm run load`)',
    '',
    `Command: \`${r.command}\` · date ${date} · ${cpus().length} cores · Node ${process.version} · result: **${r.failures.length === 0 ? 'pass' : `fail (${r.failures.join('; ')})`}**`,
    '',
    `A real core on a fresh embedded store seeded with ${count(r.seededJobs)} jobs, and a real gateway in front of it, on loopback. autocannon holds ${count(r.connections.core + r.connections.gateway)} keep-alive connections for ${r.seconds} s: ${count(r.connections.core)} to the core, each repeating a sequence of searches in five shapes, job starts, pause, resume, claiming and finishing the manual task, reading and canceling; and ${count(r.connections.gateway)} to the gateway, each repeating legacy workflow-engine calls (startJobWithOptions, getJob, pauseJob, resumeJob, getJobList, finishManualTask, tasks/search, queryJobs, cancelJob), a platform-core call (GET /accounts) and a search passed through. Control actions act on the job the same connection started, so every id is real (\`scripts/load/mix.ts\`). Every answer is checked: a status other than 2xx, a body without what the step expects (the started job, the status the action leaves, the result list), no answer within ${r.timeoutSeconds} s, or a socket error is an error, and any error fails the run. ${count(r.jobsStarted)} jobs were started during the run.`,
    '',
    `The machine has 2 cores shared by everything here: autocannon used ${(r.generatorCpuShare * 100).toFixed(0)}% of a core, and other work (other suites, builds) may have been running on the same cores, so read the figures as a floor. Latency at this concurrency is mostly queueing: with ${count(r.connections.core + r.connections.gateway)} requests always in flight, latency ≈ connections ÷ throughput.`,
    '',
    '| target | request | answered | errors | req/s | p50 ms | p90 ms | p99 ms | max ms |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...r.kinds.map(kindRow),
    ...r.totals.map((k) => kindRow(k).replace(/\| ([^|]+) \| ([^|]+) \|/, '| **$1** | **$2** |')),
    '',
    `Memory, MB. "Before" is just before the load (RSS / V8 heap used); the judged part is from the end of the warm-up (${r.warmupSeconds} s) to the end of the load; "after" is 10 s after the load stopped. Heap floor: the smallest heap-used sample in each 20 s bucket (samples every few seconds from Node's diagnostic report on SIGUSR2, which forces no collection). CPU: share of one core while the load ran.`,
    '',
    '| process | before | RSS judged part | RSS fitted growth | heap floor judged part | heap floor fitted growth | after | CPU | verdict |',
    '|---|---:|---|---:|---|---:|---:|---:|---|',
    ...memoryRows(r.memory),
    '',
    `Store files grew as the data did: ${stores}.`,
    '',
    `| window | req/s | errors | p99 ms | ${r.memory.map((m) => `${m.name} RSS | ${m.name} heap floor`).join(' | ')} |`,
    `|---|---:|---:|---:|${r.memory.map(() => '---:|---:').join('|')}|`,
    ...seriesRows(r),
    '',
    '**What "no memory growth" means here.** A leak grows memory with the requests served, without bound; data growth is bounded or on disk: the store files, the SQLite page cache filling up to its 64 MB per store as the stores grow and are read, the search count cache up to its entries. After the warm-up (the first 20% of the run), for each process: (1) the V8 heap floor must not rise: a least-squares line through the floors, projected over the judged part, must grow less than the larger of 10 MB and 10% of the mean floor; at these rates a leak of 100 bytes per request would add well over that. (2) Resident memory, which also holds the page cache and what the allocator keeps: a least-squares line through every sample must grow less than 50 MB plus the room the process\'s page cache had to fill (64 MB, or its store file\'s size when smaller). Runs whose judged part is under 60 s are not judged. "After" is read without forcing a collection, so it can still hold garbage the idle process has not collected.',
    '',
    `**Limits, timeouts and what the run found.** The client waits ${r.timeoutSeconds} s for an answer, longer than the gateway\'s upstream timeout (\`gateway.timeoutMs\`, 30 s, after which the gateway answers 504 itself), so a core too slow for the gateway shows as the gateway\'s 504 rather than as a client timeout. The HTTP servers (\`kernel/http/listen.ts\`) keep idle keep-alive connections 65 s, wait 66 s for headers and 120 s for a whole request, and set no connection limit. The gateway reaches the core over two keep-alive pools of at most 256 sockets each (pass-through and rewritten calls); beyond that requests wait in the pool, which is queueing, not failure. The login limiter counts failed logins only, and the run logs in once; request bodies are far below \`http.bodyLimit\` (1 MB). The first runs failed, and three defects were fixed where they were: (1) Node 20\'s libuv accepts one connection per turn of the event loop, and with 1,000 requests in flight a turn of the core took about a second, so the gateway\'s new pool sockets waited minutes in the kernel\'s accept queue and calls through the gateway timed out (26 req/s and hundreds of 30 s timeouts, while direct calls were fine); the servers now start at most 8 requests per turn (\`kernel/http/turns.ts\`), so a busy server keeps accepting. (2) The listen backlog was Node\'s 511 and overflowed when all connections opened at once (about 1,500 dropped handshakes, each retried after 1–15 s); it is 4096 now. (3) A caller hanging up mid-call was logged by the gateway as a 502 "pass-through failed", blaming a healthy core.`,
    '<!-- load:end -->',
  ].join('\n');
}
