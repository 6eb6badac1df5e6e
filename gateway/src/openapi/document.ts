/**
 * The gateway's OpenAPI document (docs/openapi.md): the core's operations,
 * which it passes through unchanged, as the core's own document describes
 * them (the gateway asks the core for it rather than building the core); the legacy operations of the mapping
 * table, which it answers itself; and its own routes. Where a legacy
 * operation and a core route share a method and path, the legacy one is
 * what the gateway serves, so it is what the document says.
 */
import { openApiDocument, openApiPath, routePaths } from '../../../kernel/index.ts';
import type { OpenApiDocument, Paths } from '../../../kernel/index.ts';
import type { Entry } from '../mapping/types.ts';
import type { ReleaseCalendar } from '../releases.ts';
import { legacyErrorResponses, legacyPaths } from './legacy-operations.ts';
import { gatewayOwnRoutes } from './own-routes.ts';

export interface GatewayDocumentInput {
  /** The core's own document (its `GET /openapi.json`). */
  readonly core: OpenApiDocument;
  readonly entries: readonly Entry[];
  readonly calendar: ReleaseCalendar;
  readonly version: string;
  readonly release: string;
  readonly metrics: boolean;
}

function merge(into: Paths, from: Paths): void {
  for (const [path, ops] of Object.entries(from)) into[path] = { ...into[path], ...ops };
}

export function gatewayDocument(input: GatewayDocumentInput): OpenApiDocument {
  const own = gatewayOwnRoutes(input.metrics);
  const ownKeys = new Set(own.map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`));
  // The core's own description and metrics are the core's: at the gateway these paths are the gateway's.
  const paths: Paths = {};
  for (const [path, ops] of Object.entries(input.core.paths)) {
    if (path === '/metrics') continue;
    const passed = Object.fromEntries(Object.entries(ops).filter(([method]) => !ownKeys.has(`${method} ${path}`)));
    if (Object.keys(passed).length > 0) paths[path] = passed;
  }
  merge(paths, routePaths(own));
  const legacyIds = new Map(input.entries.map((e) => [`${e.legacy.method} ${openApiPath(e.legacy.path)}`, `legacy.${e.id}`]));
  const successorOf = (route: { method: string; path: string }): string | null => {
    const path = openApiPath(route.path);
    return legacyIds.get(`${route.method} ${path}`) ?? paths[path]?.[route.method.toLowerCase()]?.operationId ?? null;
  };
  merge(paths, legacyPaths(input.entries, input.calendar, successorOf));
  return openApiDocument(
    {
      title: 'iap-compat gateway',
      version: input.version,
      release: input.release,
      description: 'The gateway in front of the core: it answers the deprecated legacy operations (workflow-engine and platform-core) by rewriting them onto the core\'s, in their old shapes, with Deprecation, Sunset and Link headers, and 410 once removed (docs/gateway.md); it passes every other call through to the core unchanged (the core operations below), with /nso_manager/ as an alias of /orchestrator_manager/. Errors and their codes: docs/errors.md; credentials and roles: docs/auth.md.',
    },
    paths,
    legacyErrorResponses(),
    input.core.components.schemas,
  );
}
