/**
 * The one error family of the core. Every failure a handler or a store can
 * report is an AppError with a stable machine code; the error middleware is
 * the only place that turns it into HTTP. Messages of 4xx errors are shown to
 * the caller; 5xx errors are logged and replaced by a generic message.
 */

/** Stable error codes. Adding one is fine; renaming one breaks clients. */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'VALIDATION_FAILED'
  | 'INVALID_JSON'
  | 'PAYLOAD_TOO_LARGE'
  | 'DOCUMENT_TOO_LARGE'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'TOO_MANY_REQUESTS'
  | 'GONE'
  | 'UPSTREAM_FAILED'
  | 'UPSTREAM_TIMEOUT'
  | 'STORE_UNAVAILABLE'
  | 'STORE_FULL'
  | 'INTERNAL';

/** One entry of `metadata` on validation failures: what was wrong and where. */
export interface ErrorDetail {
  /** The parameter, body path or id the problem is about. */
  readonly parameter: string;
  readonly message: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[];

  constructor(status: number, code: ErrorCode, message: string, details: readonly ErrorDetail[] = [], options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** 4xx messages are meant for the caller; 5xx internals are not. */
  get expose(): boolean {
    return this.status < 500;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, details: readonly ErrorDetail[] = []) {
    super(400, 'BAD_REQUEST', message, details);
  }
}

/** Input did not pass validation; `details` lists every offending parameter. */
export class ValidationError extends AppError {
  constructor(message: string, details: readonly ErrorDetail[]) {
    super(400, 'VALIDATION_FAILED', message, details);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super(404, 'NOT_FOUND', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details: readonly ErrorDetail[] = []) {
    super(409, 'CONFLICT', message, details);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Authentication is required') {
    super(401, 'UNAUTHENTICATED', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, 'FORBIDDEN', message);
  }
}

/** Too many failed attempts; `retryAfter` seconds until the next may succeed. */
export class TooManyRequestsError extends AppError {
  constructor(message: string, readonly retryAfter: number) {
    super(429, 'TOO_MANY_REQUESTS', message);
  }
}

export class StoreUnavailableError extends AppError {
  constructor(message: string, cause?: unknown) {
    super(503, 'STORE_UNAVAILABLE', message, [], { cause });
  }
}

/** The store's disk is full: writes are refused until space is freed; reads go on. */
export class StoreFullError extends AppError {
  constructor(cause?: unknown) {
    super(507, 'STORE_FULL', "The store's disk is full; free space in its data directory and try again", [], { cause });
  }
}

/**
 * A document the store cannot hold: larger than a MongoDB document may be
 * (16 MiB of BSON). Both stores refuse it, so a change SQLite accepts is
 * never one MongoDB refuses.
 */
export class DocumentTooLargeError extends AppError {
  constructor(readonly collection: string, readonly bytes: number, readonly limit: number) {
    super(413, 'DOCUMENT_TOO_LARGE', `The ${collection} document would take ${bytes} bytes; a stored document may take at most ${limit}`);
  }
}

/** Normalises anything thrown into an AppError; unknown errors become a 500. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { status?: unknown; expose?: unknown; message?: unknown; type?: unknown } | null;
  // CASE: errors raised by Koa and the body parser carry status/expose (http-errors).
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) {
    const message = typeof e.message === 'string' ? e.message : 'Bad request';
    if (e.status === 413) return new AppError(413, 'PAYLOAD_TOO_LARGE', 'Request body is too large');
    if (e.type === 'entity.parse.failed') return new AppError(400, 'INVALID_JSON', `Request body is not valid JSON: ${message}`);
    return new AppError(e.status, e.status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', message);
  }
  return new AppError(500, 'INTERNAL', 'Internal error', [], { cause: err });
}
