/**
 * The parts of the interface's description every operation shares: the
 * credentials it accepts and the shapes of its answers, per surface
 * (docs/errors.md). Written once here so the core's and the gateway's
 * documents say the same thing.
 */
import { ERROR_CODE_NAMES, ERROR_CODES } from '../errors.ts';
import type { ErrorCodeEntry } from '../errors.ts';
import type { ResponseShape } from '../http/route.ts';

export type JsonSchema = Record<string, unknown>;

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: JsonSchema }>;
  links?: Record<string, unknown>;
}

export const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', description: 'A login token (POST /login) or a client-credentials token (POST /oauth/token)' },
  basic: { type: 'http', scheme: 'basic', description: 'An account\'s username and password (a service account trades its client id and secret for a bearer token at POST /oauth/token)' },
  cookie: { type: 'apiKey', in: 'cookie', name: 'token', description: 'The cookie POST /login sets' },
  queryToken: { type: 'apiKey', in: 'query', name: 'token', description: 'A token (64 hexadecimal characters) in the query string' },
} as const;

/** Any one of the credentials will do: the first present is the one used (docs/auth.md). */
export const ANY_CREDENTIAL = Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] }));

const nullableText = { type: ['string', 'null'] };
/** What was wrong with one input; errors an orchestrator reported also carry its RESTCONF fields (docs/relay.md). */
const detail = {
  type: 'object',
  required: ['parameter', 'message'],
  properties: { parameter: { type: 'string' }, message: { type: 'string' }, errorType: nullableText, errorTag: nullableText, errorPath: nullableText },
  additionalProperties: false,
};

export const SCHEMAS: Record<string, JsonSchema> = {
  ErrorDetail: detail,
  PlainError: {
    type: 'object',
    description: 'An error of a core route outside the operations manager',
    required: ['message', 'code', 'details'],
    properties: { message: { type: 'string' }, code: { $ref: '#/components/schemas/ErrorCode' }, details: { type: 'array', items: { $ref: '#/components/schemas/ErrorDetail' } } },
    additionalProperties: false,
  },
  OperationsManagerError: {
    type: 'object',
    description: 'An error in the operations-manager envelope; metadata.errors lists each invalid input',
    required: ['message', 'data', 'metadata'],
    properties: {
      message: { type: 'string' },
      data: { type: 'null' },
      metadata: { type: 'object', properties: { errors: { type: 'array', items: { $ref: '#/components/schemas/ErrorDetail' } } }, additionalProperties: false },
    },
    additionalProperties: false,
  },
  OAuthError: {
    type: 'object',
    description: 'An error of the token endpoint (RFC 6749 section 5.2)',
    required: ['error', 'error_description'],
    properties: { error: { type: 'string' }, error_description: { type: 'string' } },
    additionalProperties: false,
  },
  LegacyError: { type: 'string', description: 'A legacy error: a JSON string naming what was wrong' },
  OperationsManagerEnvelope: {
    type: 'object',
    description: 'The operations manager\'s answer envelope',
    required: ['message', 'data', 'metadata'],
    properties: { message: { type: 'string' }, data: {}, metadata: { type: 'object' } },
    additionalProperties: false,
  },
  ErrorCode: {
    type: 'string',
    description: 'A stable error code; docs/errors.md says what each means',
    enum: [...ERROR_CODE_NAMES],
  },
};

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

const ERROR_SCHEMA: Record<ResponseShape, JsonSchema> = {
  'operations-manager': ref('OperationsManagerError'),
  plain: ref('PlainError'),
  oauth: ref('OAuthError'),
};

/**
 * What each error status of the core's surfaces means: the codes answered
 * with it and their descriptions, from the one catalogue (kernel/errors.ts).
 * Codes only legacy operations answer are described by the gateway's document.
 */
export function errorTexts(codes: Readonly<Record<string, ErrorCodeEntry>> = ERROR_CODES): Map<number, string> {
  const byStatus = new Map<number, string[]>();
  for (const [code, entry] of Object.entries(codes)) {
    if (entry.legacyOnly) continue;
    for (const status of [entry.status, ...(entry.otherStatuses ?? [])]) byStatus.set(status, [...(byStatus.get(status) ?? []), `${code}: ${entry.description}`]);
  }
  return new Map([...byStatus].sort(([a], [b]) => a - b).map(([status, texts]) => [status, texts.join('. ')]));
}

const ERROR_TEXT = errorTexts();

const JSON_TYPE = 'application/json';

const SHAPE_NAMES: Record<ResponseShape, string> = { 'operations-manager': 'OperationsManager', plain: 'Plain', oauth: 'OAuth' };

function errorBody(shape: ResponseShape, status: number): OpenApiResponse {
  return {
    description: ERROR_TEXT.get(status) ?? 'An error',
    headers: { 'X-Error-Code': { description: 'The stable error code (docs/errors.md)', schema: ref('ErrorCode') } },
    content: { [JSON_TYPE]: { schema: ERROR_SCHEMA[shape] } },
  };
}

/** A reference to the shared error answer of a surface and status (components.responses). */
export function errorResponse(shape: ResponseShape, status: number): { $ref: string } {
  return { $ref: `#/components/responses/${SHAPE_NAMES[shape]}${status}` };
}

/** Every error answer, once: operations refer to them rather than repeating them. */
export function errorResponses(): Record<string, OpenApiResponse> {
  const out: Record<string, OpenApiResponse> = {};
  for (const shape of Object.keys(SHAPE_NAMES) as ResponseShape[]) {
    for (const status of ERROR_TEXT.keys()) out[`${SHAPE_NAMES[shape]}${status}`] = errorBody(shape, status);
  }
  return out;
}

export function jsonResponse(description: string, schema: JsonSchema): OpenApiResponse {
  return { description, content: { [JSON_TYPE]: { schema } } };
}

/** An envelope's metadata when the route declares none: the control actions' `{}`. */
const EMPTY_METADATA: JsonSchema = { type: 'object', additionalProperties: false };

/**
 * A success answer in the surface's shape: on the operations manager the envelope around the route's `data`
 * and `metadata`; elsewhere the route's own body. A route that declares no answer is described loosely (the
 * generic envelope, or any JSON); the route-declaration test allows none.
 */
export function successResponse(shape: ResponseShape, description: string, body?: JsonSchema, metadata?: JsonSchema): OpenApiResponse {
  if (shape === 'operations-manager') {
    if (!body) return jsonResponse(description, ref('OperationsManagerEnvelope'));
    return jsonResponse(description, {
      type: 'object',
      required: ['message', 'data', 'metadata'],
      properties: { message: { type: 'string' }, data: body, metadata: metadata ?? EMPTY_METADATA },
      additionalProperties: false,
    });
  }
  return jsonResponse(description, body ?? {});
}

/** `/jobs/:id` (the router's form) as `/jobs/{id}` (OpenAPI's). */
export function openApiPath(routerPath: string): string {
  return routerPath.replace(/:(\w+)/g, '{$1}');
}

export function pathParamNames(routerPath: string): string[] {
  return [...routerPath.matchAll(/:(\w+)/g)].map((m) => m[1]!);
}
