/**
 * The one place errors become HTTP. Each surface answers in its own shape:
 * the operations-manager envelope `{message, data: null, metadata}` (details
 * of validation failures in `metadata.errors`), or `{message, code, details}`
 * elsewhere. The stable code is also sent as `X-Error-Code` so envelope
 * clients can branch on it. 5xx internals are logged, never shown.
 */
import type { Context, Middleware } from 'koa';
import { AppError, toAppError, TooManyRequestsError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { RequestState } from './request-context.ts';
import type { Surface } from './route.ts';

export interface SurfaceState {
  surface?: Surface;
}

/** The surface of the route a method and path lead to, for errors raised before the route runs. */
export type RouteSurfaces = (method: string, path: string) => Surface | undefined;

function surfaceOf(ctx: Context, routeSurfaces?: RouteSurfaces): Surface {
  const declared = (ctx.state as SurfaceState).surface ?? routeSurfaces?.(ctx.method, ctx.path);
  if (declared) return declared;
  return ctx.path === '/operations-manager' || ctx.path.startsWith('/operations-manager/') ? 'operations-manager' : 'plain';
}

const OAUTH_ERRORS: Partial<Record<AppError['code'], string>> = {
  UNAUTHENTICATED: 'invalid_client',
  VALIDATION_FAILED: 'invalid_request',
  BAD_REQUEST: 'invalid_request',
  INVALID_JSON: 'invalid_request',
};

export function renderError(surface: Surface, err: AppError): unknown {
  if (surface === 'oauth') {
    // RFC 6749 section 5.2: OAuth clients read `error`.
    return { error: OAUTH_ERRORS[err.code] ?? (err.status >= 500 ? 'server_error' : 'invalid_request'), error_description: err.message };
  }
  if (surface === 'operations-manager') {
    return { message: err.message, data: null, metadata: err.details.length > 0 ? { errors: err.details } : {} };
  }
  return { message: err.message, code: err.code, details: err.details };
}

/** A body that could not be read is the client's mistake: too large, or not valid JSON. */
export function bodyError(err: Error): AppError {
  const status = (err as { status?: unknown }).status;
  if (status === 413) return new AppError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large');
  if (status === 415) return new AppError(415, 'BAD_REQUEST', 'Unsupported request body type');
  // V8 and bourne messages name only a position or the forbidden key, never other input.
  return new AppError(400, 'INVALID_JSON', `Request body could not be read: ${err.message}`);
}

/** `routeSurfaces` is asked only on errors, so answering a request costs no route lookup. */
export function errorHandler(logger: Logger, routeSurfaces?: RouteSurfaces): Middleware {
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
      ctx.set('X-Error-Code', err.code);
      if (err instanceof TooManyRequestsError) ctx.set('Retry-After', String(err.retryAfter));
      if (err.status === 401) ctx.set('WWW-Authenticate', 'Bearer, Basic realm="iap"');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = renderError(surfaceOf(ctx, routeSurfaces), err);
    }
  };
}
