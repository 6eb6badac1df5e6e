/**
 * Both services' documents from a configuration, as the running services
 * make them: for `npm run openapi`, which commits them to docs/, and for the
 * tests that check those files and the answers against them.
 */
import type { AppConfig } from '../../../config/schema.ts';
import { coreDocument } from '../../../core/src/openapi/document.ts';
import type { OpenApiDocument } from '../../../core/src/openapi/document.ts';
import pkg from '../../../package.json' with { type: 'json' };
import { CALENDAR_FILE, MAPPINGS_DIR } from '../app.ts';
import { hatchRegistry } from '../mapping/hatches/index.ts';
import { loadMappings } from '../mapping/load.ts';
import { loadCalendar } from '../releases.ts';
import { coreRouteTable } from './core-routes.ts';
import { gatewayDocument } from './document.ts';

export interface Documents {
  readonly core: OpenApiDocument;
  readonly gateway: OpenApiDocument;
}

export function buildDocuments(config: Readonly<AppConfig>): Documents {
  const release = config.platform.release;
  const coreRoutes = coreRouteTable(config);
  const calendar = loadCalendar(CALENDAR_FILE);
  const entries = loadMappings(MAPPINGS_DIR, calendar, hatchRegistry);
  return {
    core: coreDocument(coreRoutes, pkg.version, release),
    gateway: gatewayDocument({ coreRoutes, entries, calendar, version: pkg.version, release, metrics: config.metrics.enabled }),
  };
}
