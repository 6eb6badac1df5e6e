/**
 * Both services' documents from a configuration, as the running services
 * make them: for `npm run openapi`, which commits them to docs/, and for the
 * tests that check those files and the answers against them. A script may
 * hold both services at once; the gateway itself asks the running core for
 * the core's document (gateway/src/app.ts).
 */
import { Registry } from 'prom-client';
import type { AppConfig } from '../config/schema.ts';
import { createCoreApp } from '../core/src/app.ts';
import { CORE_COLLECTIONS } from '../core/src/store/collections.ts';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../gateway/src/app.ts';
import { hatchRegistry } from '../gateway/src/mapping/hatches/index.ts';
import { loadMappings } from '../gateway/src/mapping/load.ts';
import { gatewayDocument } from '../gateway/src/openapi/document.ts';
import { loadCalendar } from '../gateway/src/releases.ts';
import { coreDocument } from '../core/src/openapi/document.ts';
import type { OpenApiDocument } from '../kernel/openapi/document.ts';
import type { AnyRoute } from '../kernel/http/route.ts';
import { createLogger } from '../kernel/logger.ts';
import { metricsRoutes } from '../kernel/metrics/routes.ts';
import { SqliteStore } from '../kernel/store/sqlite/store.ts';
import pkg from '../package.json' with { type: 'json' };

export interface Documents {
  readonly core: OpenApiDocument;
  readonly gateway: OpenApiDocument;
}

/** The core's route table, built on a throwaway in-memory store: nothing is started, bootstrapped or listened on. */
export function coreRouteTable(config: Readonly<AppConfig>): AnyRoute[] {
  const store = SqliteStore.open({ dataDir: ':memory:', countCacheEntries: 0, collections: CORE_COLLECTIONS });
  try {
    const core = createCoreApp({ store, config, logger: createLogger({ level: 'error', service: 'core', silent: true }), metrics: null });
    // Its metrics route, listed as the core lists it when metrics are on, without starting the collectors.
    return config.metrics.enabled ? [...core.routes, ...metricsRoutes(new Registry())] : [...core.routes];
  } finally {
    void store.close();
  }
}

export function buildDocuments(config: Readonly<AppConfig>): Documents {
  const release = config.platform.release;
  const core = coreDocument(coreRouteTable(config), pkg.version, release);
  const calendar = loadCalendar(CALENDAR_FILE);
  const entries = loadMappings(MAPPINGS_DIR, calendar, hatchRegistry);
  return { core, gateway: gatewayDocument({ core: { document: core, from: '/openapi.json' }, entries, calendar, version: pkg.version, release, metrics: config.metrics.enabled }) };
}
