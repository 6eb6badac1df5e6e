/**
 * The core's OpenAPI 3.1 document, made from its route records
 * (docs/openapi.md). The gateway's document adds the legacy operations to it.
 */
import type { AnyRoute } from '../http/route.ts';
import { routePaths } from './operations.ts';
import type { Paths } from './operations.ts';
import { ANY_CREDENTIAL, errorResponses, SCHEMAS, SECURITY_SCHEMES } from './shapes.ts';
import type { OpenApiResponse } from './shapes.ts';

export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect: string;
  info: { title: string; version: string; description: string; [extension: `x-${string}`]: unknown };
  security: Array<Record<string, string[]>>;
  tags: Array<{ name: string; description?: string }>;
  paths: Paths;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown>; responses: Record<string, OpenApiResponse> };
}

export interface DocumentInfo {
  readonly title: string;
  readonly version: string;
  readonly release: string;
  readonly description: string;
}

export function openApiDocument(info: DocumentInfo, paths: Paths, responses: Record<string, OpenApiResponse> = {}): OpenApiDocument {
  // Sorted, so a document does not change with the order modules are assembled in.
  const sorted: Paths = {};
  for (const path of Object.keys(paths).sort()) sorted[path] = paths[path]!;
  const tags = [...new Set(Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags)))].sort().map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: { title: info.title, version: info.version, description: info.description, 'x-platform-release': info.release },
    security: ANY_CREDENTIAL,
    tags,
    paths: sorted,
    components: { securitySchemes: { ...SECURITY_SCHEMES }, schemas: { ...SCHEMAS }, responses: { ...errorResponses(), ...responses } },
  };
}

export function coreDocument(routes: readonly AnyRoute[], version: string, release: string): OpenApiDocument {
  return openApiDocument(
    {
      title: 'iap-compat core',
      version,
      release,
      description: 'The new HTTP interface of the workflow automation platform: operations-manager job and task search and control, the workflow engine, authorization, the orchestrator relay, transformations, and the automation and service catalogs. Errors and their codes: docs/errors.md; credentials and roles: docs/auth.md.',
    },
    routePaths(routes),
  );
}
