/**
 * An OpenAPI 3.1 document made from route records (docs/openapi.md): the
 * core's (core/src/openapi/document.ts), and the gateway's, which adds the
 * legacy operations to the core's.
 */
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

/** `schemas`: named schemas the paths refer to beyond the shared ones (the core's, in the gateway's document). */
export function openApiDocument(info: DocumentInfo, paths: Paths, responses: Record<string, OpenApiResponse> = {}, schemas: Record<string, unknown> = {}): OpenApiDocument {
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
    components: { securitySchemes: { ...SECURITY_SCHEMES }, schemas: { ...schemas, ...SCHEMAS }, responses: { ...errorResponses(), ...responses } },
  };
}
