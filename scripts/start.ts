/**
 * `npm start`: runs the core and the gateway as two processes, core first.
 * On the very first start of an empty embedded store it seeds a small demo
 * data set (1,000 jobs), so a new user has jobs to search at once; pass
 * `--demo-jobs 0` to start empty. Production runs `start:core` and
 * `start:gateway` separately and never seeds.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { seedStore } from '../core/src/seed/seed.ts';
import { openStore } from '../core/src/store/open.ts';

const { values } = parseArgs({ options: { 'demo-jobs': { type: 'string', default: '1000' } } });
const demoJobs = Number(values['demo-jobs']);
if (!Number.isSafeInteger(demoJobs) || demoJobs < 0) {
  console.error('usage: npm start -- [--demo-jobs N]');
  process.exit(2);
}

const config = await loadConfig();
if (!config.mongoUrl && demoJobs > 0) {
  const store = await openStore(config);
  try {
    if ((await store.collection('jobs').count(null)) === 0) {
      const counts = await seedStore(store, { jobs: demoJobs, seed: 1, tasksFraction: 0.2 });
      console.log(`first start on an empty store: seeded ${counts.jobs.inserted} demo jobs and ${counts.tasks.inserted} tasks into ${config.dataDir} (npm run seed -- --jobs N adds more)`);
    }
  } finally {
    await store.close();
  }
}

const children: ChildProcess[] = [];
let stopping = false;

function run(script: string): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: 'inherit' });
  children.push(child);
  child.on('exit', (code, signal) => {
    if (stopping) return;
    console.error(`${script} stopped (${signal ?? `exit ${code}`}); stopping the other service`);
    stop(1);
  });
  return child;
}

function stop(code: number): void {
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 2000).unref();
  Promise.all(children.map((c) => (c.exitCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r))))).then(() => process.exit(code));
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

run('core/src/main.ts');
// The gateway can start at once: it answers 502 until the core listens.
run('gateway/src/main.ts');
