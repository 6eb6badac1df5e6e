/**
 * `npm run archive`: the archiver by hand, on a running or a stopped
 * installation (the lease in the store keeps it from archiving beside a
 * running service's pass). See docs/archive.md.
 *
 *   npm run archive -- [--older-than 30d] [--only jobs|audit] [--dry-run]
 *   npm run archive -- --restore DATA_DIR/archive/jobs-2026-09-01.jsonl.gz
 *   npm run archive -- --find <jobId>
 *
 * Exit codes: 0 done, 1 failed (or --find found nothing), 2 bad arguments.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/load.ts';
import type { AppConfig } from '../config/load.ts';
import { Archiver } from '../kernel/archive/archiver.ts';
import { archiveDir } from '../kernel/archive/files.ts';
import { DueWindow } from '../kernel/archive/groups.ts';
import type { GroupSpec } from '../kernel/archive/groups.ts';
import type { GroupName } from '../kernel/archive/files.ts';
import { ArchiveInputError, groupOfFile, restoreFile } from '../kernel/archive/restore.ts';
import { archiveOwner, DAY_MS } from '../kernel/archive/service.ts';
import { createLogger } from '../kernel/logger.ts';
import { openStore } from '../kernel/store/open.ts';
import { SqliteStore } from '../kernel/store/sqlite/store.ts';
import type { Store } from '../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../core/src/store/collections.ts';
import { findJob, jobsGroup } from '../core/src/archive/jobs.ts';
import { auditGroup } from '../gateway/src/audit/archive-group.ts';
import { GATEWAY_COLLECTIONS } from '../gateway/src/audit/collection.ts';

/** Both services' groups: this tool archives the core's jobs and the gateway's audit. */
const GROUPS: Readonly<Record<GroupName, GroupSpec>> = { jobs: jobsGroup, audit: auditGroup };

const USAGE = `usage: npm run archive -- [--older-than DAYSd] [--only jobs|audit] [--dry-run]
       npm run archive -- --restore FILE [--restore FILE ...]
       npm run archive -- --find JOB_ID

  --older-than 30d  archive finished jobs (with their tasks) and audit records older than 30 days
                    (default: retention.jobDays / retention.auditDays from the config; 0 there means keep)
  --only GROUP      only jobs (the core's store) or audit (the gateway's store)
  --dry-run         say how many would be archived; change nothing
  --restore FILE    put an archive file's documents back into the store and drop the file (repeatable)
  --find JOB_ID     print an archived job and its tasks as JSON
`;

function usage(problem: string): never {
  process.stderr.write(`archive: ${problem}\n\n${USAGE}`);
  process.exit(2);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The store a group lives in: the core's, or the gateway's own file beside it (as gateway/src/main.ts opens it). */
async function storeOf(config: Readonly<AppConfig>, group: GroupName): Promise<Store | null> {
  if (group === 'jobs') return openStore(config, CORE_COLLECTIONS);
  // The audit is the gateway's own store: GATEWAY_MONGO_URL, never the core's MONGO_URL.
  if (config.gateway.mongoUrl) return openStore({ ...config, mongoUrl: config.gateway.mongoUrl }, GATEWAY_COLLECTIONS);
  if (!existsSync(join(config.dataDir, 'gateway.sqlite'))) return null;
  return SqliteStore.open({ dataDir: config.dataDir, fileName: 'gateway.sqlite', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
}

/** `days` null: retention is off for the group and nothing is archived. */
async function archiveGroup(config: Readonly<AppConfig>, group: GroupName, days: number | null, dryRun: boolean): Promise<void> {
  if (days === null) return void process.stdout.write(`${group}: retention off (0 days in the config, no --older-than); nothing to do\n`);
  const store = await storeOf(config, group);
  if (!store) return void process.stdout.write(`${group}: no gateway store in ${config.dataDir}; nothing to do\n`);
  try {
    const cutoff = Date.now() - days * DAY_MS;
    const before = new Date(cutoff).toISOString();
    if (dryRun) {
      const n = await DueWindow.countDue(store, GROUPS[group]!, cutoff);
      return void process.stdout.write(`${group}: ${n} ${group === 'jobs' ? 'finished jobs (with their tasks)' : 'audit records'} older than ${before} would be archived\n`);
    }
    const logger = createLogger({ level: config.log.level, service: 'archive' });
    const archiver = new Archiver({ store, group: GROUPS[group]!, dir: archiveDir(config.dataDir), owner: archiveOwner(), leaseMs: config.retention.leaseMs, batchSize: config.retention.batchSize, logger });
    // A running service's pass, or a killed archiver's unexpired lease, holds the group: wait for it.
    const giveUp = Date.now() + config.retention.leaseMs * 2 + 10_000;
    for (;;) {
      // How long the loop was held shows what the archiver would cost a service it runs inside.
      const loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      const started = performance.now();
      const result = await archiver.pass(cutoff);
      const seconds = (performance.now() - started) / 1000;
      loop.disable();
      if (result.ran) {
        const counts = GROUPS[group]!.kinds.map((k) => `${result.archived[k]} ${k}`).join(', ');
        const total = Object.values(result.archived).reduce((a, b) => a + b, 0);
        process.stdout.write(`${group}: archived ${counts} older than ${before} in ${result.batches} batches\n`);
        const ms = (ns: number): string => (ns / 1e6).toFixed(1);
        return void process.stdout.write(`${group}: ${total} documents in ${seconds.toFixed(1)} s (${Math.round(total / Math.max(seconds, 1e-3))} documents/s); event loop delay p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms; waited ${(result.waitedMs / 1000).toFixed(1)} s for the store\n`);
      }
      if (Date.now() > giveUp) throw new Error(`another process kept the ${group} archive lease; try again later`);
      await sleep(500);
    }
  } finally {
    // The embedded store drops the deleted jobs' entries from its text index in the background (docs/archive.md):
    // a command has no requests to answer meanwhile, so it finishes that before it exits.
    if (store instanceof SqliteStore) await store.settle();
    await store.close();
  }
}

async function main(): Promise<void> {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      strict: true,
      allowPositionals: false,
      options: { 'older-than': { type: 'string' }, only: { type: 'string' }, 'dry-run': { type: 'boolean' }, restore: { type: 'string', multiple: true }, find: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    usage((err as Error).message);
  }
  if (values['help']) return void process.stdout.write(USAGE);
  const modes = ['restore', 'find'].filter((m) => values[m] !== undefined);
  if (modes.length > 1 || (modes.length === 1 && (values['older-than'] !== undefined || values['dry-run'] || values['only'] !== undefined))) usage('--restore and --find stand alone');
  const only = values['only'] as string | undefined;
  if (only !== undefined && only !== 'jobs' && only !== 'audit') usage('--only must be jobs or audit');
  const olderThan = values['older-than'] as string | undefined;
  if (olderThan !== undefined && !/^\d{1,6}d$/.test(olderThan)) usage('--older-than must be a number of days like 30d');

  let config: Readonly<AppConfig>;
  try {
    config = await loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) return void (process.stderr.write(`${err.message}\n`), process.exit(1));
    throw err;
  }
  const dir = archiveDir(config.dataDir);
  if (typeof values['find'] === 'string') {
    const found = await findJob(dir, values['find']);
    if (!found) {
      process.stderr.write(`archive: no archived job ${values['find']} in ${dir}\n`);
      process.exit(1);
    }
    return void process.stdout.write(`${JSON.stringify(found, null, 2)}\n`);
  }
  const restores = values['restore'] as unknown as string[] | undefined;
  if (restores !== undefined) {
    for (const given of restores) {
      const file = resolve(given);
      const group = groupOfFile(file, Object.values(GROUPS)).name;
      const store = await storeOf(config, group);
      if (!store) throw new ArchiveInputError(`no gateway store in ${config.dataDir} to restore audit records into`);
      try {
        const { inserted, skipped } = await restoreFile({ store, dir, file, groups: Object.values(GROUPS), owner: archiveOwner(), leaseMs: config.retention.leaseMs, waitMs: config.retention.leaseMs * 2 + 10_000 });
        process.stdout.write(`restored ${inserted} documents from ${file}${skipped > 0 ? ` (${skipped} already in the store, skipped)` : ''}\n`);
      } finally {
        await store.close();
      }
    }
    return;
  }
  const days = olderThan === undefined ? null : Number(olderThan.slice(0, -1));
  for (const group of ['jobs', 'audit'] as const) {
    if (only !== undefined && only !== group) continue;
    const configured = group === 'jobs' ? config.retention.jobDays : config.retention.auditDays;
    await archiveGroup(config, group, days ?? (configured > 0 ? configured : null), values['dry-run'] === true);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`archive: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
