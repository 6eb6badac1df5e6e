/** The core's OpenAPI document, made from its route records (docs/openapi.md). */
import { openApiDocument, routePaths } from '../../../kernel/index.ts';
import type { AnyRoute, OpenApiDocument } from '../../../kernel/index.ts';

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
