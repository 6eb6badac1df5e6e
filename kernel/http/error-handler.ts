/**
 * The one place errors become HTTP. Each surface answers in its own shape:
 * the operations-manager envelope `{message, data: null, metadata}` (details
 * of validation failures in `metadata.errors`), or `{message, code, details}`
 * elsewhere. The stable code is also sent as `X-Error-Code` so envelope
 * clients can branch on it. 5xx internals are logged, never shown.
 */
import type { Context, Middleware } from 'koa';
import { AppError, ERROR_CODES, toAppError } from '../errors.ts';
import type { ErrorCode, ErrorDetail } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { errorHeaders } from './raw-answer.ts';
import type { RequestState } from './request-context.ts';
import type { ResponseShape } from './route.ts';

export interface ShapeState {
  shape?: ResponseShape;
}

/** The surface of the route a method and path lead to, for errors raised before the route runs. */
export type RouteShapes = (method: string, path: string) => ResponseShape | undefined;

function shapeOf(ctx: Context, routeShapes?: RouteShapes): ResponseShape {
  const declared = (ctx.state as ShapeState).shape ?? routeShapes?.(ctx.method, ctx.path);
  if (declared) return declared;
  return ctx.path === '/operations-manager' || ctx.path.startsWith('/operations-manager/') ? 'operations-manager' : 'plain';
}

const OAUTH_ERRORS: Partial<Record<AppError['code'], string>> = {
  UNAUTHENTICATED: 'invalid_client',
  VALIDATION_FAILED: 'invalid_request',
  BAD_REQUEST: 'invalid_request',
  INVALID_JSON: 'invalid_request',
};

export function renderError(shape: ResponseShape, err: AppError): unknown {
  if (shape === 'oauth') {
    // RFC 6749 section 5.2: OAuth clients read `error`.
    return { error: OAUTH_ERRORS[err.code] ?? (err.status >= 500 ? 'server_error' : 'invalid_request'), error_description: err.message };
  }
  if (shape === 'operations-manager') {
    return { message: err.message, data: null, metadata: err.details.length > 0 ? { errors: err.details } : {} };
  }
  return { message: err.message, code: err.code, details: err.details };
}

/** An error answer as a client of ours reads it back: its code when it named a known one, its message and details. */
export interface ReadError {
  readonly code: ErrorCode | null;
  /** The message with the reasons it does not already state; the answer as JSON when it has no message. */
  readonly message: string;
  readonly details: readonly ErrorDetail[];
}

function knownCode(value: unknown): ErrorCode | null {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value) ? (value as ErrorCode) : null;
}

function detailsOf(list: unknown): ErrorDetail[] {
  if (!Array.isArray(list)) return [];
  return list.map((d: unknown) => {
    const { parameter, message } = (typeof d === 'object' && d !== null ? d : {}) as { parameter?: unknown; message?: unknown };
    return { parameter: String(parameter), message: String(message) };
  });
}

/**
 * The inverse of renderError, for the services that call one another: reads
 * the envelope (`{message, data, metadata: {errors}}`), `{message, code,
 * details}` and OAuth's `{error, error_description}` alike. The per-parameter
 * reasons the message does not already state are joined to it, so a refusal
 * reads the same whichever caller passes it on. `xErrorCode` is the answer's
 * `X-Error-Code`, which wins over a code in the body.
 */
export function readError(status: number, xErrorCode: string | undefined, body: unknown): ReadError {
  if (body === undefined || body === null || body === '') return { code: knownCode(xErrorCode), message: `The answer had status ${status} and no message`, details: [] };
  if (typeof body === 'string') return { code: knownCode(xErrorCode), message: body, details: [] };
  if (typeof body !== 'object') return { code: knownCode(xErrorCode), message: JSON.stringify(body), details: [] };
  const { message, code, details, metadata, error_description: oauth } = body as { message?: unknown; code?: unknown; details?: unknown; metadata?: { errors?: unknown }; error_description?: unknown };
  const listed = detailsOf(Array.isArray(details) ? details : metadata?.errors);
  const said = typeof message === 'string' ? message : typeof oauth === 'string' ? oauth : null;
  if (said === null) return { code: knownCode(xErrorCode) ?? knownCode(code), message: JSON.stringify(body), details: listed };
  const unsaid = listed.filter((d) => !said.includes(d.message)).map((d) => `${d.parameter}: ${d.message}`);
  return { code: knownCode(xErrorCode) ?? knownCode(code), message: unsaid.length > 0 ? `${said} (${unsaid.join('; ')})` : said, details: listed };
}

/** A body that could not be read is the client's mistake: too large, or not valid JSON. */
export function bodyError(err: Error): AppError {
  const status = (err as { status?: unknown }).status;
  if (status === 413) return new AppError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large');
  if (status === 415) return new AppError(415, 'BAD_REQUEST', 'Unsupported request body type');
  // V8 and bourne messages name only a position or the forbidden key, never other input.
  return new AppError(400, 'INVALID_JSON', `Request body could not be read: ${err.message}`);
}

/** `routeShapes` is asked only on errors, so answering a request costs no route lookup. */
export function errorHandler(logger: Logger, routeShapes?: RouteShapes): Middleware {
  return async function errorHandlerMiddleware(ctx, next) {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        throw new AppError(404, 'NOT_FOUND', `No operation at ${ctx.method} ${ctx.path}`);
      }
      // The router answers a path that exists with 405, and a method no route uses (TRACE) with 501: both are the caller's mistake.
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body == null) {
        const allow = ctx.response.get('Allow');
        throw new AppError(405, 'METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}${allow ? `; it takes ${allow}` : ''}`);
      }
    } catch (thrown) {
      const err = toAppError(thrown);
      const log = (ctx.state as Partial<RequestState>).logger ?? logger;
      if (!err.expose) log.error('request failed', { code: err.code, error: err.cause instanceof Error ? err.cause.stack : String(err.cause ?? err.message) });
      ctx.status = err.status;
      // The same headers as an error written outside Koa (raw-answer.ts).
      for (const [name, value] of Object.entries(errorHeaders(err))) ctx.set(name, String(value));
      ctx.body = renderError(shapeOf(ctx, routeShapes), err);
    }
  };
}
