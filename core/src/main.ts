/**
 * Starts the core service: config, logger, store, HTTP. Stops cleanly on
 * SIGINT/SIGTERM so the store is closed and nothing acknowledged is lost.
 */
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config/load.ts';
import { createLogger, listen, openStore, STALL_CHECK_MS, StallDetector, startArchiveService } from '../../kernel/index.ts';
import { createCoreApp } from './app.ts';
import { jobsGroup } from './archive/jobs.ts';
import { CORE_COLLECTIONS } from './store/collections.ts';

const config = await loadConfig();
const logger = createLogger({ level: config.log.level, service: 'core' });
const stalls = new StallDetector({ thresholdMs: config.stalls.thresholdMs, intervalMs: STALL_CHECK_MS, logger }).start();
const store = await openStore(config, CORE_COLLECTIONS);
const core = createCoreApp({ store, config, logger, stalls });
await core.bootstrap();
void core.engine.recover().catch((err: unknown) => logger.error('resuming running jobs failed', { error: String(err) }));
// Cores sharing the store list each other's gateway adapters from these records.
setInterval(() => void core.gateways.publish().catch((err: unknown) => logger.warn('cluster record not written', { error: String(err) })), 30_000).unref();
// Every interface unless told (`core.host`); `npm start` binds loopback, behind the gateway (docs/deployment.md).
const host = config.core.host ?? '0.0.0.0';
const server = await listen(core.app, config.core.port, host, { requests: stalls });
core.automationScheduler.start();
core.triggerScheduler.start();
// Finished jobs past their retention go to DATA_DIR/archive (off unless RETENTION_JOB_DAYS is set).
const archive = startArchiveService({ store, dataDir: config.dataDir, group: jobsGroup, days: config.retention.jobDays, retention: config.retention, logger });
const { port } = server.address() as AddressInfo;
logger.info(`core listening on port ${port} (store: ${store.kind})`, { port, host });

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info(`core stopping (${signal})`);
  server.close();
  server.closeIdleConnections();
  await core.automationScheduler.stop();
  await core.triggerScheduler.stop();
  await archive.stop();
  core.engine.stop();
  await store.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
