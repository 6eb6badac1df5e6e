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
import type { UpstreamDescription } from './source.ts';
import type { EndOf } from '../legacy/serve-until.ts';

export interface GatewayDocumentInput {
  /** The upstream's own document and where it was read, or why there is none (source.ts). */
  readonly core: UpstreamDescription;
  readonly entries: readonly Entry[];
  readonly calendar: ReleaseCalendar;
  readonly version: string;
  readonly release: string;
  readonly metrics: boolean;
  /** Until when each legacy operation is served (the serving policy); the schedule's removal when not given. */
  readonly endOf?: EndOf;
}

function merge(into: Paths, from: Paths): void {
  for (const [path, ops] of Object.entries(from)) into[path] = { ...into[path], ...ops };
}

export function gatewayDocument(input: GatewayDocumentInput): OpenApiDocument {
  const own = gatewayOwnRoutes(input.metrics);
  const ownKeys = new Set(own.map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`));
  // The core's own description and metrics are the core's: at the gateway these paths are the gateway's.
  const paths: Paths = {};
  const core = input.core.document;
  for (const [path, ops] of Object.entries(core?.paths ?? {})) {
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
  merge(paths, legacyPaths(input.entries, input.calendar, successorOf, input.endOf));
  const upstream = input.core.document
    ? `The upstream operations below are those its own document (GET ${input.core.from}) describes.`
    : `The upstream describes none of its operations (${input.core.why}), so they are left out here; the gateway passes them through all the same.`;
  const document = openApiDocument(
    {
      title: 'iap-compat gateway',
      version: input.version,
      release: input.release,
      description: `The gateway in front of the core: it answers the deprecated legacy operations (workflow-engine and platform-core) by rewriting them onto the core\'s, in their old shapes, with Deprecation, Sunset and Link headers, and 410 once no longer served (docs/gateway.md, "Serving policy"); it passes every other call through to the upstream unchanged, /nso_manager/ included. ${upstream} Errors and their codes: docs/errors.md; credentials and roles: docs/auth.md.`,
    },
    paths,
    { ...upstreamComponent(core, 'responses'), ...legacyErrorResponses() },
    upstreamComponent(core, 'schemas'),
  );
  // The upstream's other shared parts (a platform's document refers to its parameters, request bodies, ...) are kept, so its $refs resolve.
  const components = document.components as Record<string, unknown>;
  for (const [kind, members] of Object.entries(core?.components ?? {})) if (!Object.hasOwn(components, kind)) components[kind] = members;
  return document;
}

/** One kind of the upstream's components, or none. */
function upstreamComponent<T>(core: OpenApiDocument | null, kind: 'schemas' | 'responses'): Record<string, T> {
  const members = (core?.components as Record<string, unknown> | undefined)?.[kind];
  return typeof members === 'object' && members !== null ? (members as Record<string, T>) : {};
}
