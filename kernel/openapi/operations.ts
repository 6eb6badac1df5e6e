/**
 * The core's operations, described from its route records: each route's
 * method name, provenance, roles and input validators. Joi schemas are
 * converted by joi-to-json (OpenAPI 3.1, that is JSON Schema 2020-12), JSON
 * Schemas are used as they are; an input checked by code without a schema
 * (the search languages, docs/search.md) is described as free-form.
 */
import joiToJson from 'joi-to-json';
import type { AnyRoute, InputSchema } from '../http/route.ts';
import { errorResponse, openApiPath, pathParamNames, successResponse } from './shapes.ts';
import type { JsonSchema, OpenApiResponse } from './shapes.ts';

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  deprecated?: boolean;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<Record<string, unknown>>;
  requestBody?: Record<string, unknown>;
  responses: Record<string, OpenApiResponse | { $ref: string }>;
  [extension: `x-${string}`]: unknown;
}

export type Paths = Record<string, Record<string, OpenApiOperation>>;

/**
 * Success statuses other than 200, by route. The route records do not say
 * which status they answer; the contract test (test/contract/) fails when
 * an answer's status is missing here.
 */
const SUCCESS_STATUSES: Readonly<Record<string, readonly number[]>> = {
  'DELETE /transformations/:id': [204],
};

// The package is CommonJS (`module.exports = parse`) while its types declare named and default exports.
const parse = joiToJson as unknown as typeof import('joi-to-json').parse;

/** Answers that are not JSON, by route: their media types. */
const SUCCESS_CONTENT: Readonly<Record<string, readonly string[]>> = {
  'GET /metrics': ['text/plain; version=0.0.4'],
  'GET /docs': ['text/html'],
  'GET /docs/:file': ['text/css', 'text/javascript', 'image/png'],
  // The gateway's audit report, by `format` or the Accept header.
  'GET /gateway/audit/report': ['application/json', 'text/csv', 'text/html'],
};

export function toJsonSchema(schema: InputSchema): JsonSchema {
  if ('jsonSchema' in schema) return { ...schema.jsonSchema };
  return parse(schema.joi, 'open-api-3.1') as JsonSchema;
}

function parameters(route: AnyRoute): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const params = route.input.params?.schema ? toJsonSchema(route.input.params.schema) : null;
  const paramProps = (params?.['properties'] ?? {}) as Record<string, JsonSchema>;
  for (const name of pathParamNames(route.path)) out.push({ name, in: 'path', required: true, schema: paramProps[name] ?? { type: 'string' } });
  const query = route.input.query;
  if (query?.schema) {
    const schema = toJsonSchema(query.schema);
    const required = new Set((schema['required'] ?? []) as string[]);
    for (const [name, prop] of Object.entries((schema['properties'] ?? {}) as Record<string, JsonSchema>)) out.push({ name, in: 'query', required: required.has(name), schema: prop });
  } else if (query) {
    // Searches read their own languages (docs/search.md): described as a set of named parameters.
    out.push({ name: 'query', in: 'query', required: false, style: 'form', explode: true, description: 'Search and projection parameters (docs/search.md)', schema: { type: 'object', additionalProperties: { type: 'string' } } });
  }
  return out;
}

function requestBody(route: AnyRoute): Record<string, unknown> | undefined {
  const body = route.input.body;
  if (!body) return undefined;
  const schema = body.schema ? toJsonSchema(body.schema) : {};
  const content: Record<string, { schema: JsonSchema }> = { 'application/json': { schema } };
  // The token endpoint takes the form encoding OAuth clients send (RFC 6749).
  if (route.shape === 'oauth') content['application/x-www-form-urlencoded'] = { schema };
  return { required: true, content };
}

/** Error statuses a route may answer: from its inputs and access rules (docs/errors.md). */
export function errorStatuses(route: AnyRoute): number[] {
  const statuses = [400, 404, 409, 413, 415, 500, 502, 503, 504, 507];
  if (route.roles !== 'public' || route.input.body) statuses.push(401, 429);
  if (Array.isArray(route.roles)) statuses.push(403);
  return statuses.sort((a, b) => a - b);
}

function accessText(route: AnyRoute): string {
  if (route.roles === 'public') return 'No credentials needed.';
  if (route.roles === 'authenticated') return 'Any authenticated caller.';
  return `Roles: ${[...new Set(['admin', ...route.roles])].map((r) => `${route.provenance}.${r}`).join(', ')}.`;
}

export function operationIdOf(route: AnyRoute): string {
  return `${route.provenance}.${route.name}`;
}

export function routeOperation(route: AnyRoute, operationId: string): OpenApiOperation {
  const responses: OpenApiOperation['responses'] = {};
  for (const status of SUCCESS_STATUSES[`${route.method} ${route.path}`] ?? [200]) {
    const media = SUCCESS_CONTENT[`${route.method} ${route.path}`];
    if (status === 204) responses[String(status)] = { description: 'Done; no body' };
    else if (media) responses[String(status)] = { description: route.description, content: Object.fromEntries(media.map((m) => [m, { schema: m.includes('json') ? {} : { type: 'string' } }])) };
    else {
      const body = route.answer ? toJsonSchema(route.answer) : undefined;
      const metadata = route.answerMetadata ? toJsonSchema(route.answerMetadata) : undefined;
      responses[String(status)] = successResponse(route.shape, route.description, body, metadata);
    }
  }
  for (const status of errorStatuses(route)) responses[String(status)] = errorResponse(route.shape, status);
  const op: OpenApiOperation = {
    operationId,
    summary: route.description,
    description: `${accessText(route)} Method \`${route.name}\` of ${route.provenance}.`,
    tags: [route.provenance],
    responses,
  };
  if (route.roles === 'public') op.security = [];
  const params = parameters(route);
  if (params.length > 0) op.parameters = params;
  const body = requestBody(route);
  if (body) op.requestBody = body;
  return op;
}

/** Every route as an OpenAPI operation; ids are `Provenance.methodName`, made unique where two routes share one. */
export function routePaths(routes: readonly AnyRoute[]): Paths {
  const paths: Paths = {};
  const used = new Set<string>();
  for (const route of routes) {
    let id = operationIdOf(route);
    if (used.has(id)) id = `${id}(${route.method} ${route.path})`;
    used.add(id);
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = routeOperation(route, id);
  }
  return paths;
}
