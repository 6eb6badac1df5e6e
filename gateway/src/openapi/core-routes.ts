/**
 * The core's route table, for the gateway's description of the operations it
 * passes through. The gateway and the core are one code base released
 * together, so the table is built here from the same modules, on a
 * throwaway in-memory store (nothing is started, bootstrapped or listened
 * on), rather than fetched from a core that may not be up yet.
 */
import { Registry } from 'prom-client';
import type { AppConfig } from '../../../config/schema.ts';
import { createCoreApp } from '../../../core/src/app.ts';
import type { AnyRoute } from '../../../core/src/http/route.ts';
import { createLogger } from '../../../core/src/logger.ts';
import { metricsRoutes } from '../../../core/src/metrics/routes.ts';
import { SqliteStore } from '../../../core/src/store/sqlite/store.ts';

export function coreRouteTable(config: Readonly<AppConfig>): AnyRoute[] {
  const store = SqliteStore.open({ dataDir: ':memory:', countCacheEntries: 0 });
  try {
    const core = createCoreApp({ store, config, logger: createLogger({ level: 'error', service: 'core', silent: true }), metrics: null });
    // Its metrics route, listed as the core lists it when metrics are on, without starting the collectors.
    return config.metrics.enabled ? [...core.routes, ...metricsRoutes(new Registry())] : [...core.routes];
  } finally {
    void store.close();
  }
}
