/** Starts the gateway in front of its upstream at CORE_URL: our core, or a real Itential Platform (docs/real-platform.md). */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadConfig } from '../../config/load.ts';
import { createLogger, listen, openStore, SqliteStore, STALL_CHECK_MS, StallDetector, startArchiveService } from '../../kernel/index.ts';
import { createGatewayApp } from './app.ts';
import { auditGroup } from './audit/archive-group.ts';
import { GATEWAY_COLLECTIONS } from './audit/collection.ts';
import { AuditJournal } from './audit/journal.ts';
import { WriterThread } from './audit/writer-thread.ts';

const config = await loadConfig();
const logger = createLogger({ level: config.log.level, service: 'gateway' });
const stalls = new StallDetector({ thresholdMs: config.stalls.thresholdMs, intervalMs: STALL_CHECK_MS, logger }).start();
// Its own file beside the core's, so the two processes never wait on each other's writes. With SQLite, audit
// batches are stored, and the WAL checkpointed, by a writer thread on its own connection (writer-thread.ts);
// MongoDB's driver does its I/O off the event loop, so there they are stored from here.
const GATEWAY_FILE = 'gateway.sqlite';
// The audit store is the gateway's own setting, never MONGO_URL: in front of a real platform, the core's database
// setting could name the platform's, and the gateway writes nothing there (docs/real-platform.md).
const mongoUrl = config.gateway.mongoUrl;
if (config.mongoUrl && !mongoUrl) logger.info(`audit: stored in ${GATEWAY_FILE} under DATA_DIR; MONGO_URL is the core's, so set GATEWAY_MONGO_URL to keep the audit in MongoDB`);
const store = mongoUrl ? await openStore({ ...config, mongoUrl }, GATEWAY_COLLECTIONS) : SqliteStore.open({ dataDir: config.dataDir, fileName: GATEWAY_FILE, countCacheEntries: 0, autoCheckpoint: false, collections: GATEWAY_COLLECTIONS });
const auditSink = mongoUrl || config.dataDir === ':memory:' ? undefined : new WriterThread({ dataDir: config.dataDir, fileName: GATEWAY_FILE });
const auditJournal = AuditJournal.open(join(config.dataDir, 'gateway-audit.jsonl'));
if (auditJournal.recovered.length > 0) logger.info(`audit: ${auditJournal.recovered.length} records kept by the journal of an earlier run go into the store with the first batch`);
const gateway = createGatewayApp({ config, logger, store, auditJournal, stalls, ...(auditSink ? { auditSink } : {}) });
const server = await listen(gateway.app, config.port, config.host, { requests: stalls });
// Audit records past their retention go to DATA_DIR/archive (off unless RETENTION_AUDIT_DAYS is set).
const archive = startArchiveService({ store, dataDir: config.dataDir, group: auditGroup, days: config.retention.auditDays, retention: config.retention, logger });
const { port } = server.address() as AddressInfo;
logger.info(`gateway listening on port ${port}, upstream at ${config.core.url}, ${gateway.entries.length} legacy operations mapped`, { port, host: config.host });

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info(`gateway stopping (${signal})`);
    stalls.stop();
    server.close();
    server.closeIdleConnections();
    void archive.stop().then(() => gateway.close()).then(() => store.close()).then(() => process.exit(0));
  });
}
