/**
 * Starts the core service: config, logger, store, HTTP, then the modules'
 * background work (`core.start()`). Stops cleanly on SIGINT/SIGTERM: the
 * modules stop (`core.stop()`), then the store closes, so nothing
 * acknowledged is lost.
 */
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config/load.ts';
import { createLogger, listen, openStore, STALL_CHECK_MS, StallDetector } from '../../kernel/index.ts';
import { createCoreApp } from './app.ts';
import { CORE_COLLECTIONS } from './store/collections.ts';

const config = await loadConfig();
const logger = createLogger({ level: config.log.level, service: 'core' });
const stalls = new StallDetector({ thresholdMs: config.stalls.thresholdMs, intervalMs: STALL_CHECK_MS, logger }).start();
const store = await openStore(config, CORE_COLLECTIONS, {
  searchThread(change) {
    if (change.state === 'ready') logger.info('store searches run on the search thread');
    // Until it is back, searches run on the event loop, where one that reads every row holds the core (docs/search.md).
    else logger.error(`the store's search thread stopped; starting it again in ${change.restartInMs} ms`, {
      error: change.error instanceof Error ? change.error.message : String(change.error),
    });
  },
});
const core = createCoreApp({ store, config, logger, stalls });
await core.bootstrap();
// Every interface unless told (`core.host`); `npm start` binds loopback, behind the gateway (docs/deployment.md).
const host = config.core.host ?? '0.0.0.0';
const server = await listen(core.app, config.core.port, host, { requests: stalls });
await core.start();
const { port } = server.address() as AddressInfo;
logger.info(`core listening on port ${port} (store: ${store.kind})`, { port, host });

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info(`core stopping (${signal})`);
  server.close();
  server.closeIdleConnections();
  await core.stop();
  stalls.stop();
  await store.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
