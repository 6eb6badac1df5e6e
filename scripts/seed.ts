/**
 * Fills the configured store with generated jobs, tasks, accounts, groups
 * and workflows:
 *
 *   npm run seed -- --jobs 100000 --seed 7 --tasks-fraction 0.1
 *
 * The store comes from the config (MongoDB when mongoUrl is set, else SQLite
 * under dataDir); --data-dir seeds the SQLite store in that directory instead.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { openStore } from '../kernel/store/open.ts';
import { DEFAULT_BATCH_SIZE, seedStore } from '../core/src/seed/seed.ts';
import type { SeedProgress } from '../core/src/seed/seed.ts';
import { CORE_COLLECTIONS } from '../core/src/store/collections.ts';

const USAGE = `usage: npm run seed -- [--jobs N] [--seed S] [--tasks-fraction F] [--data-dir DIR]
                        [--batch-size B] [--now ISO-DATE]

  --jobs N            jobs to generate (default 1000)
  --seed S            integer seed; the same seed gives the same documents (default 1)
  --tasks-fraction F  share of jobs, 0..1, that also get task documents (default 0.1)
  --data-dir DIR      seed the SQLite store in DIR, ignoring the configured store
  --batch-size B      jobs per insert (default ${DEFAULT_BATCH_SIZE})
  --now ISO-DATE      reference time; jobs start within the year before it (default now)`;

class UsageError extends Error {}

interface CliOptions {
  jobs: number;
  seed: number;
  tasksFraction: number;
  dataDir: string | null;
  batchSize: number;
  now: number;
}

function integer(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new UsageError(`--${name} must be an integer`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${name} must be an integer of at least ${min}`);
  return n;
}

function parse(argv: string[]): CliOptions | null {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        jobs: { type: 'string' },
        seed: { type: 'string' },
        'tasks-fraction': { type: 'string' },
        'data-dir': { type: 'string' },
        'batch-size': { type: 'string' },
        now: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return null;
  const rawFraction = values['tasks-fraction'];
  const tasksFraction = rawFraction === undefined ? 0.1 : Number(rawFraction);
  if (rawFraction !== undefined && (rawFraction.trim() === '' || !(tasksFraction >= 0 && tasksFraction <= 1))) {
    throw new UsageError('--tasks-fraction must be a number between 0 and 1');
  }
  let now = Date.now();
  if (values.now !== undefined) {
    now = Date.parse(values.now);
    if (Number.isNaN(now)) throw new UsageError('--now must be an ISO date such as 2025-01-31T00:00:00Z');
  }
  const dataDir = values['data-dir'];
  if (dataDir !== undefined && dataDir.trim() === '') throw new UsageError('--data-dir must not be empty');
  return {
    jobs: integer('jobs', values.jobs, 1000, 0),
    seed: integer('seed', values.seed, 1, -0x80000000),
    tasksFraction,
    dataDir: dataDir ?? null,
    batchSize: integer('batch-size', values['batch-size'], DEFAULT_BATCH_SIZE, 1),
    now,
  };
}

function progressReporter(): (p: SeedProgress) => void {
  // Progress redraws one line, so it only makes sense on a terminal; logs get the summary alone.
  if (!process.stderr.isTTY) return () => {};
  return (p) => {
    const pct = p.jobsTotal === 0 ? 100 : Math.floor((p.jobsDone / p.jobsTotal) * 100);
    process.stderr.write(`\r${p.jobsDone}/${p.jobsTotal} jobs (${pct}%), ${p.tasksInserted} tasks`);
    if (p.jobsDone === p.jobsTotal) process.stderr.write('\n');
  };
}

async function main(): Promise<number> {
  let opts: CliOptions | null;
  try {
    opts = parse(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`seed: ${err.message}\n${USAGE}`);
    return 2;
  }
  if (opts === null) {
    console.log(USAGE);
    return 0;
  }
  const config = await loadConfig();
  const storeConfig = opts.dataDir === null ? config : { ...config, dataDir: opts.dataDir, mongoUrl: null };
  const started = performance.now();
  const store = await openStore(storeConfig, CORE_COLLECTIONS);
  try {
    const c = await seedStore(store, {
      jobs: opts.jobs,
      seed: opts.seed,
      tasksFraction: opts.tasksFraction,
      batchSize: opts.batchSize,
      now: opts.now,
      onProgress: progressReporter(),
    });
    const seconds = (performance.now() - started) / 1000;
    const where = store.kind === 'sqlite' ? `sqlite in ${storeConfig.dataDir}` : 'mongodb';
    const skipped = (n: number): string => (n > 0 ? ` (${n} already there)` : '');
    console.log(
      `seeded ${c.jobs.inserted} jobs${skipped(c.jobs.skipped)}, ${c.tasks.inserted} tasks${skipped(c.tasks.skipped)}, ` +
        `${c.accounts.inserted} accounts${skipped(c.accounts.skipped)}, ${c.groups.inserted} groups${skipped(c.groups.skipped)}, ` +
        `${c.workflows.inserted} workflows${skipped(c.workflows.skipped)} into ${where} in ${seconds.toFixed(1)}s ` +
        `(${Math.round(opts.jobs / Math.max(seconds, 0.001))} jobs/s)`,
    );
  } finally {
    await store.close();
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(`seed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  },
);
