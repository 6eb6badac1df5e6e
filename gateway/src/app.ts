/**
 * Assembles the gateway: the legacy operations of the mapping table, the
 * `/nso_manager` alias, and a streaming pass-through of everything else to
 * the core, all behind one front door (front-door/door.ts); only the
 * gateway's own routes enter Koa. Its dependencies are passed in; `close()`
 * flushes the audit.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { ConfigError } from '../../config/load.ts';
import type { AppConfig } from '../../config/schema.ts';
import { errorHandler, forwardedRequest, observeAnswers, trustedProxies } from '../../kernel/index.ts';
import type { AnswerTap, Logger, StallCount, Store, TrustedProxies } from '../../kernel/index.ts';
import type { AuditJournal } from './audit/journal.ts';
import { AuditRecorder } from './audit/recorder.ts';
import type { AuditSink } from './audit/sink.ts';
import { auditReportRoute } from './audit/report-route.ts';
import { createCoreClient } from './core-client.ts';
import type { CoreClient } from './core-client.ts';
import { gatewayDoor } from './front-door/door.ts';
import { GatewayResponse } from './front-door/response.ts';
import type { Stage } from './front-door/chain.ts';
import { exchangeOf, fromFrontDoor } from './front-door/koa-stage.ts';
import { legacyStage } from './legacy/dispatch.ts';
import { readServeUntil } from './legacy/serve-until.ts';
import { createGatewayMetrics, removalDates } from './metrics.ts';
import type { GatewayMetrics } from './metrics.ts';
import { gatewayDocument } from './openapi/document.ts';
import { documentSource, fetchCoreDocument } from './openapi/source.ts';
import { legacyObserver } from './observe-legacy.ts';
import { ownRouteOf, ownRoutes } from './own-routes.ts';
import { hatches, hatchRegistry } from './mapping/hatches/index.ts';
import { loadMappings } from './mapping/load.ts';
import type { Entry } from './mapping/types.ts';
import { passThrough } from './proxy.ts';
import { createUpstream } from './upstream.ts';
import type { PassThrough } from './proxy.ts';
import { loadCalendar } from './releases.ts';
import type { ReleaseCalendar } from './releases.ts';
import pkg from '../../package.json' with { type: 'json' };

export const MAPPINGS_DIR = fileURLToPath(new URL('../../mappings', import.meta.url));
export const CALENDAR_FILE = fileURLToPath(new URL('../../config/releases.json', import.meta.url));

export interface GatewayDeps {
  readonly config: Readonly<AppConfig>;
  readonly logger: Logger;
  /** Where audit records are written. */
  readonly store: Store;
  /** Where audit records wait until they are stored, so a killed gateway loses none; none for a store in memory. */
  readonly auditJournal?: AuditJournal | null;
  /** Where audit batches are stored; by default `store`, on the event loop (the writer thread takes SQLite's off it). */
  readonly auditSink?: AuditSink;
  readonly entries?: readonly Entry[];
  /** Where the mapping table is read when no entries are given: mappings/ (tests start on an edited copy). */
  readonly mappingsDir?: string;
  readonly calendar?: ReleaseCalendar;
  /** The client for rewritten calls; tests pass one that records what it sends. */
  readonly coreClient?: CoreClient;
  /** The process's stall detector, counted by the metrics; none in tests that start none. */
  readonly stalls?: StallCount;
  /** Its metrics (docs/metrics.md); made when absent and `metrics.enabled`, none when null. */
  readonly metrics?: GatewayMetrics | null;
  /** Sees every answer the gateway makes itself (the contract test records them); none by default. */
  readonly tap?: AnswerTap | null;
}

export interface Gateway {
  readonly app: Koa;
  readonly entries: readonly Entry[];
  readonly audit: AuditRecorder;
  readonly metrics: GatewayMetrics | null;
  close(): Promise<void>;
}

/** Koa, behind the front door: `callback()` answers with the door, which hands Koa only the gateway's own routes. */
class GatewayKoa extends Koa {
  /** Its answers add the request id and the security headers as their head is written (front-door/response.ts); listen.ts uses it. */
  readonly serverResponse = GatewayResponse;
  door: { logger: Logger; trusted: TrustedProxies; legacy: Stage; passThrough: PassThrough } | null = null;

  override callback(): ReturnType<Koa['callback']> {
    const koa = super.callback();
    if (this.door === null) return koa;
    // The gateway listens on HTTP/1.1 only (listen.ts): its requests are IncomingMessages.
    const door = gatewayDoor({ ...this.door, koa });
    return (req, res) => {
      door(req as IncomingMessage, res as ServerResponse);
      return Promise.resolve();
    };
  }
}

export function createGatewayApp(deps: GatewayDeps): Gateway {
  const calendar = deps.calendar ?? loadCalendar(CALENDAR_FILE);
  // A bad table stops the gateway here, with every problem named.
  const entries = deps.entries ?? loadMappings(deps.mappingsDir ?? MAPPINGS_DIR, calendar, hatchRegistry);
  // Checked against the table and the calendar, so a mistyped id or date stops the start rather than serving on the schedule.
  const serveUntil = readServeUntil(deps.config.gateway.serveUntil, entries, calendar);
  if (!serveUntil.ok) throw new ConfigError([...serveUntil.problems]);
  const { endOf } = serveUntil;
  const app = new GatewayKoa();
  app.silent = true;
  const audit = new AuditRecorder(deps.store, deps.logger, { journal: deps.auditJournal ?? null, ...(deps.auditSink ? { sink: deps.auditSink } : {}) });
  const metrics = deps.metrics !== undefined ? deps.metrics : deps.config.metrics.enabled ? createGatewayMetrics({ auditBacklog: () => audit.backlog, removals: removalDates(entries, calendar), ...(deps.stalls ? { stalls: deps.stalls } : {}) }) : null;
  const trusted = trustedProxies(deps.config.http.trustedProxies);
  // One connection to the upstream for the pass-through and the rewritten calls; a bad CA file or URL stops the start here.
  const upstream = createUpstream({ url: deps.config.core.url, caFile: deps.config.core.caFile, tlsVerify: deps.config.core.tlsVerify, timeoutMs: deps.config.gateway.timeoutMs }, deps.logger);
  const proxy = passThrough({ upstream, timeoutMs: deps.config.gateway.timeoutMs, bodyLimitBytes: deps.config.http.bodyLimitBytes }, metrics);
  const client = deps.coreClient ?? createCoreClient(upstream, deps.config.gateway.legacyMaxMb * 1024 * 1024);
  const legacy = legacyStage({
    entries,
    calendar,
    release: deps.config.platform.release,
    brownouts: deps.config.gateway.brownouts,
    endOf,
    client,
    audit,
    hatches,
    paging: { pageMax: deps.config.gateway.upstreamPageMax, maxRecords: deps.config.gateway.legacyMaxRecords },
    bodyLimitBytes: deps.config.http.bodyLimitBytes,
    observe: legacyObserver(metrics, deps.tap ?? null),
  });
  app.use(forwardedRequest(trusted));
  app.use(fromFrontDoor(deps.logger));
  if (metrics || deps.tap) app.use(observeAnswers('gateway', ownRouteOf, metrics?.request ?? null, deps.tap ?? null));
  app.use(errorHandler(deps.logger));
  app.use(async (ctx, next) => {
    // The gateway's own liveness, answered even when the core is down.
    if (ctx.method === 'GET' && ctx.path === '/gateway/health/live') {
      ctx.body = { status: 'ok' };
      return;
    }
    await next();
  });
  const document = documentSource(fetchCoreDocument(client), (core) => gatewayDocument({ core, entries, calendar, endOf, version: pkg.version, release: deps.config.platform.release, metrics: metrics !== null }));
  app.use(ownRoutes({ document, metrics, client }));
  app.use(auditReportRoute({ entries, calendar, release: deps.config.platform.release, endOf, store: deps.store, audit, client }));
  // Any other `/gateway/...` path is the core's to answer (a 404 in its shape), as every path the gateway does not serve is.
  app.use((ctx) => {
    ctx.respond = false;
    proxy.handle(exchangeOf(ctx.req, ctx.res, deps.logger, trusted));
  });
  app.door = { logger: deps.logger, trusted, legacy, passThrough: proxy };
  return {
    app,
    entries,
    audit,
    metrics,
    async close() {
      await audit.close();
      proxy.close();
      client.close();
    },
  };
}
