/**
 * `npm start`: runs the core and the gateway as two processes, core first.
 * On the very first start of an empty embedded store it seeds a small demo
 * data set (1,000 jobs), so a new user has jobs to search at once; pass
 * `--demo-jobs 0` to start empty. A service that dies is started again
 * (supervise.ts) while the other serves on; Ctrl-C or SIGTERM stops both.
 * Production runs `start:core` and `start:gateway` separately and never seeds.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { seedStore } from '../core/src/seed/seed.ts';
import { openStore } from '../kernel/store/open.ts';
import { supervise } from './supervise.ts';
import { CORE_COLLECTIONS } from '../core/src/store/collections.ts';

const { values } = parseArgs({ options: { 'demo-jobs': { type: 'string', default: '1000' } } });
const demoJobs = Number(values['demo-jobs']);
if (!Number.isSafeInteger(demoJobs) || demoJobs < 0) {
  console.error('usage: npm start -- [--demo-jobs N]');
  process.exit(2);
}

const config = await loadConfig();
if (!config.mongoUrl && demoJobs > 0) {
  const store = await openStore(config, CORE_COLLECTIONS);
  try {
    if ((await store.collection('jobs').count(null)) === 0) {
      const counts = await seedStore(store, { jobs: demoJobs, seed: 1, tasksFraction: 0.2 });
      console.log(`first start on an empty store: seeded ${counts.jobs.inserted} demo jobs and ${counts.tasks.inserted} tasks into ${config.dataDir} (npm run seed -- --jobs N adds more)`);
    }
  } finally {
    await store.close();
  }
}

const log = (line: string): void => console.error(`npm start: ${line}`);
// The gateway is the core's front door here: the core listens on loopback only, unless core.host (CORE_HOST) says
// otherwise. The children read it from the environment they inherit (docs/deployment.md, "Listen addresses").
if (config.core.host === null) process.env['CORE_HOST'] = '127.0.0.1';
const services = [
  supervise('core/src/main.ts', log),
  // The gateway can start at once: it answers 502 until the core listens.
  supervise('gateway/src/main.ts', log),
];

/** Time each service has to close its store and flush its audit before it is killed. */
const STOP_GRACE_MS = 10_000;
let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping both services`);
  await Promise.all(services.map((s) => s.stop(STOP_GRACE_MS)));
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
