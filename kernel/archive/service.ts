/**
 * The archiver in the background of a service: the core archives jobs (with
 * their tasks), the gateway its audit records. Every `pollMs` a pass runs if
 * the group's retention is on (days > 0) and no other process holds the
 * group's lease; a pass works in small batches and yields between them.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/types.ts';
import { Archiver } from './archiver.ts';
import { archiveDir } from './files.ts';
import type { GroupSpec } from './groups.ts';

export const DAY_MS = 86_400_000;

export interface RetentionConfig {
  readonly jobDays: number;
  readonly auditDays: number;
  readonly pollMs: number;
  readonly leaseMs: number;
  readonly batchSize: number;
}

export interface ArchiveService {
  stop(): Promise<void>;
}

/** Names a process in the lease: readable in the store, unique per run. */
export function archiveOwner(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** `days`: the group's retention (the config's `retention.jobDays` or `auditDays`); 0 archives nothing. */
export function startArchiveService(deps: { store: Store; dataDir: string; group: GroupSpec; days: number; retention: RetentionConfig; logger: Logger }): ArchiveService {
  const { retention, logger, days } = deps;
  const group = deps.group.name;
  if (days <= 0) return { stop: async () => undefined };
  const archiver = new Archiver({ store: deps.store, group: deps.group, dir: archiveDir(deps.dataDir), owner: archiveOwner(), leaseMs: retention.leaseMs, batchSize: retention.batchSize, logger });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const schedule = (delay: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = archiver
        .pass(Date.now() - days * DAY_MS)
        .then((result) => {
          const total = Object.values(result.archived).reduce((a, b) => a + b, 0);
          if (total > 0) logger.info(`archive: ${total} ${group} documents archived`, { group, ...result.archived, batches: result.batches, waitedMs: Math.round(result.waitedMs) });
        })
        .catch((err: unknown) => void logger.warn('archive pass failed; the next one resumes it', { group, error: err instanceof Error ? err.message : String(err) }))
        .finally(() => schedule(retention.pollMs));
    }, delay);
    timer.unref();
  };
  schedule(Math.min(retention.pollMs, 5_000));
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      archiver.stop();
      await running;
    },
  };
}
