/**
 * Where an archive pass holds its event loop: one jobs pass on a copy of a
 * seeded store (`npm run seed`), in this process, with every store call's
 * synchronous part timed by kind (the embedded store does all its work
 * there) and the loop delay sampled alongside; an idle Node process samples
 * its own delay over the same time, the baseline for a shared, loaded host.
 *
 * `--no-checkpoint` turns off SQLite's WAL checkpoints at commit, to show
 * how much of the hold they are; `--checkpoint-ms N` moves them to the
 * store's checkpoint thread, as the core runs (`sqlite.checkpointMs`).
 * `--readers N` runs N processes beside the pass that each hold a read
 * snapshot `--read-ms` long, again and again: a search sorting on an
 * unindexed field does that to the store's WAL.
 *
 *   tsx scripts/bench/archive-hold.ts --data-dir .bench-data/seed100k [--days 270] [--batch-size 100] [--no-checkpoint | --checkpoint-ms 200]
 *                                     [--readers 2 --read-ms 1500]
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { IntervalHistogram } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Archiver } from '../../kernel/archive/archiver.ts';
import { createLogger } from '../../kernel/logger.ts';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import type { Store } from '../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';
import { jobsGroup } from '../../core/src/archive/jobs.ts';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, days: { type: 'string', default: '270' }, 'batch-size': { type: 'string', default: '100' }, 'no-checkpoint': { type: 'boolean', default: false }, 'checkpoint-ms': { type: 'string', default: '0' }, readers: { type: 'string', default: '0' }, 'read-ms': { type: 'string', default: '1500' } } });
if (!values['data-dir']) throw new Error('--data-dir DIR (a seeded store) is required');
const work = mkdtempSync(join(tmpdir(), 'archive-hold-'));
copyFileSync(join(values['data-dir'], 'iap.sqlite'), join(work, 'iap.sqlite'));

const holds = new Map<string, number[]>();
const note = (name: string, ms: number): void => void (holds.get(name) ?? holds.set(name, []).get(name)!).push(ms);

/** The store with each call's synchronous part (until it hands back its promise) timed under `collection.method`. */
function timedStore(store: Store): Store {
  const wrap = <T extends object>(target: T, prefix: string): T =>
    new Proxy(target, {
      get(obj, key, receiver) {
        const value = Reflect.get(obj, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const start = performance.now();
          const out = (value as (...a: unknown[]) => unknown).apply(obj, args);
          note(`${prefix}${String(key)}`, performance.now() - start);
          return out;
        };
      },
    });
  return new Proxy(store, {
    get(obj, key, receiver) {
      if (key === 'collection') return (name: Parameters<Store['collection']>[0]) => wrap(obj.collection(name), `${name}.`);
      if (key === 'batch') return wrap({ batch: obj.batch.bind(obj) }, 'store.').batch;
      return Reflect.get(obj, key, receiver) as unknown;
    },
  });
}

function idleLoop(): { stop(): Promise<number[]> } {
  const code = `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 1 }); h.enable();
process.on('SIGTERM', () => { h.disable(); process.stdout.write(JSON.stringify([h.percentile(50), h.percentile(99), h.max].map((n) => n / 1e6))); process.exit(0); });
setInterval(() => undefined, 1000);`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return { stop: async () => (child.kill('SIGTERM'), await exited, JSON.parse(out) as number[]) };
}

/** A process holding a read snapshot of the store `readMs` at a time, with a 5 ms gap between; answers how many it held. */
function longReader(file: string, readMs: number): { stop(): Promise<number> } {
  const code = `const db = new (require('better-sqlite3'))(process.argv[1]);
const wait = new Int32Array(new SharedArrayBuffer(4));
let held = 0;
process.on('SIGTERM', () => { process.stdout.write(String(held)); process.exit(0); });
(function read() {
  db.exec('BEGIN');
  db.prepare('SELECT count(*) FROM jobs').get();
  Atomics.wait(wait, 0, 0, Number(process.argv[2]));
  db.exec('COMMIT');
  held += 1;
  setTimeout(read, 5);
})();`;
  const child = spawn(process.execPath, ['-e', code, file, String(readMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return { stop: async () => (child.kill('SIGTERM'), await exited, Number(out)) };
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const f = (n: number): string => n.toFixed(1);
const loopFigures = (h: IntervalHistogram): number[] => [h.percentile(50), h.percentile(99), h.max].map((n) => n / 1e6);

const store = SqliteStore.open({ dataDir: work, autoCheckpoint: !values['no-checkpoint'], checkpointMs: Number(values['checkpoint-ms']), collections: CORE_COLLECTIONS });
try {
  const logger = createLogger({ level: 'error', service: 'bench', silent: true });
  const archiver = new Archiver({ store: timedStore(store), group: jobsGroup, dir: join(work, 'archive'), owner: 'hold-bench', leaseMs: 60_000, batchSize: Number(values['batch-size']), logger });
  const idle = idleLoop();
  const readers = Array.from({ length: Number(values.readers) }, () => longReader(join(work, 'iap.sqlite'), Number(values['read-ms'])));
  await new Promise((r) => setTimeout(r, 200));
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // The WAL's largest size during the pass: with checkpoints off the store's connection it must stay bounded.
  const wal = join(work, 'iap.sqlite-wal');
  let walMax = 0;
  const walWatch = setInterval(() => (walMax = Math.max(walMax, existsSync(wal) ? statSync(wal).size : 0)), 10);
  const started = performance.now();
  const result = await archiver.pass(Date.now() - Number(values.days) * 86_400_000);
  const seconds = (performance.now() - started) / 1000;
  // The text index's tidy (text-tidy.ts) may still be dropping deleted entries: its steps belong to the pass's holds.
  const tidy = await store.collection('jobs').tidyFigures();
  loop.disable();
  clearInterval(walWatch);
  const held = await Promise.all(readers.map((r) => r.stop()));
  const idleFigures = await idle.stop();
  const total = Object.values(result.archived).reduce((a, b) => a + b, 0);
  console.log(`archived ${result.archived.jobs} jobs, ${result.archived.tasks} tasks in ${result.batches} batches, ${f(seconds)} s (${Math.round(total / seconds)} documents/s), waited ${(result.waitedMs / 1000).toFixed(1)} s for the store`);
  if (readers.length > 0) console.log(`${readers.length} readers beside the pass held ${held.join(' + ')} snapshots of ${values['read-ms']} ms`);
  const [p50, p99, max] = loopFigures(loop);
  const figures = await store.checkpointFigures();
  console.log(`WAL file at most ${(walMax / 1024 / 1024).toFixed(1)} MB`);
  if (tidy) console.log(`text index: ${tidy.tidies} tidies${tidy.lastError ? `, last error ${tidy.lastError}` : ''}`);
  if (figures) console.log(`checkpoint thread: ${figures.checkpoints} checkpoints, ${figures.frames} pages copied${figures.lastError ? `, last error ${figures.lastError}` : ''}`);
  console.log(`loop delay  archiver p50 ${f(p50!)} p99 ${f(p99!)} max ${f(max!)} ms | idle process p50 ${f(idleFigures[0]!)} p99 ${f(idleFigures[1]!)} max ${f(idleFigures[2]!)} ms`);
  console.log('synchronous part of store calls (ms): call  n  median  p99  max  sum');
  for (const [name, list] of [...holds].sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0))) {
    const sorted = [...list].sort((a, b) => a - b);
    console.log(`  ${name.padEnd(24)} ${String(sorted.length).padStart(6)} ${f(pct(sorted, 50)).padStart(7)} ${f(pct(sorted, 99)).padStart(7)} ${f(sorted.at(-1)!).padStart(7)} ${f(sorted.reduce((a, b) => a + b, 0)).padStart(9)}`);
  }
} finally {
  await store.close();
  rmSync(work, { recursive: true, force: true });
}
