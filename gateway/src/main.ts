/** Starts the gateway in front of the core at CORE_URL. */
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config/load.ts';
import { listen } from '../../core/src/http/listen.ts';
import { createLogger } from '../../core/src/logger.ts';
import { createGatewayApp } from './app.ts';

const config = await loadConfig();
const logger = createLogger({ level: config.log.level, service: 'gateway' });
const { app, close } = createGatewayApp({ config, logger });
const server = await listen(app, config.port, '0.0.0.0');
const { port } = server.address() as AddressInfo;
logger.info(`gateway listening on port ${port}, core at ${config.core.url}`, { port });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    logger.info(`gateway stopping (${signal})`);
    server.close();
    server.closeIdleConnections();
    close();
    process.exit(0);
  });
}
