/**
 * The one error family. Every failure a handler or a store can report is an
 * AppError with a stable machine code; the error middleware is the only place
 * that turns it into HTTP. Messages of 4xx errors are shown to the caller;
 * 5xx errors are logged and replaced by a generic message.
 *
 * The codes are declared once, in ERROR_CODES: the `ErrorCode` type, the
 * OpenAPI `ErrorCode` enum and its per-status texts (kernel/openapi/shapes.ts)
 * and the table in docs/errors.md are all made from it, and a test fails
 * when any of them differs from it (test/kernel/error-codes.test.ts).
 */
import { DuplicateKeyError } from './store/types.ts';

export interface ErrorCodeEntry {
  /** The status an answer with this code has. */
  readonly status: number;
  /** Statuses the code also comes with; `description` says when. */
  readonly otherStatuses?: readonly number[];
  /** What the code means for a caller: when it is answered and what to do about it. */
  readonly description: string;
  /** Only the gateway's legacy operations answer it, so the core's documents do not list it. */
  readonly legacyOnly?: true;
}

/**
 * Every code, in the order docs/errors.md lists them. Adding one is fine;
 * renaming one breaks clients. Legacy operations keep the platform's status
 * (docs/decisions.md D18), so there the status may differ from this one.
 */
export const ERROR_CODES = deepFreeze({
  VALIDATION_FAILED: { status: 400, description: 'an input did not pass its validator; every offending parameter is listed' },
  BAD_REQUEST: {
    status: 400,
    otherStatuses: [415],
    description: 'a request that is well-formed but cannot be served as asked (for example a text search while the text index is missing); 415 when the body is neither JSON nor form-encoded',
  },
  INVALID_JSON: { status: 400, description: 'the body is not valid JSON, has a `__proto__` key, or nests deeper than 256 levels (a `constructor.prototype` key is read as data)' },
  UNAUTHENTICATED: { status: 401, description: 'missing or invalid credentials' },
  FORBIDDEN: { status: 403, description: 'authenticated, but no role allows the operation' },
  NOT_FOUND: { status: 404, description: 'no such document, or no operation at that path' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'the path exists for other methods' },
  CONFLICT: {
    status: 409,
    otherStatuses: [400],
    description: 'the change conflicts with the current state, for example a second document with the same unique key. The automation catalog answers a taken name with 400, as the platform\'s catalogs do',
  },
  TOO_MANY_REQUESTS: {
    status: 429,
    description: 'too many failed logins for the username or from the address, or (embedded store) as many of the caller\'s searches already waiting as one caller may have; `Retry-After` says how many seconds until the next try may succeed',
  },
  GONE: { status: 410, description: 'a legacy operation the gateway no longer serves (from its removal release, or from the end gateway.serveUntil gives it), or called inside one of its brownout windows; the message names what to call instead', legacyOnly: true },
  LEGACY_FAILED: {
    status: 500,
    description: 'a legacy operation could not be carried out: the gateway cannot rewrite the request onto the core\'s operations (the message names the part), or the operation has no equivalent on this platform. Legacy errors keep the platform\'s form, a JSON string with status 500',
    legacyOnly: true,
  },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'the body is larger than `http.bodyLimit`' },
  DOCUMENT_TOO_LARGE: { status: 413, description: 'a document to store would exceed 16 MiB as BSON, MongoDB\'s limit, which both stores apply; nothing of the change was written' },
  UPSTREAM_FAILED: {
    status: 502,
    description: 'a peer (the core, behind the gateway; an orchestrator) could not be reached or gave an answer that cannot be used; an orchestrator\'s own error answer keeps its status (docs/relay.md)',
  },
  UPSTREAM_TIMEOUT: { status: 504, description: 'a peer did not answer in time' },
  STORE_UNAVAILABLE: {
    status: 503,
    description: 'the store cannot be reached, or (embedded store) another process kept it locked past the busy timeout, or (MongoDB) the replica set has no primary, the server is stepping down or shutting down, or a write concern was not met; worth retrying',
  },
  STORE_FULL: {
    status: 507,
    description: 'the store\'s disk is full (MongoDB: the server refuses writes for lack of space): the write was not made; reads go on, and writes succeed again once space is freed, with no restart',
  },
  INTERNAL: { status: 500, description: 'anything else; the message is always "Internal error" and the details go to the log with the request id' },
} satisfies Record<string, ErrorCodeEntry>);

/** Stable error codes: the keys of ERROR_CODES. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The codes in declaration order. */
export const ERROR_CODE_NAMES = Object.freeze(Object.keys(ERROR_CODES) as ErrorCode[]);

function deepFreeze<T extends Record<string, ErrorCodeEntry>>(codes: T): Readonly<T> {
  for (const entry of Object.values(codes)) {
    if (entry.otherStatuses) Object.freeze(entry.otherStatuses);
    Object.freeze(entry);
  }
  return Object.freeze(codes);
}

/** The table of codes as Markdown: docs/errors.md carries exactly this, and a test checks it. */
export function errorCodeTable(codes: Readonly<Record<string, ErrorCodeEntry>> = ERROR_CODES): string {
  const rows = Object.entries(codes).map(([code, { status, otherStatuses = [], description }]) => `| \`${code}\` | ${[status, ...otherStatuses].join(', ')} | ${description} |`);
  return ['| code | status | when |', '|---|---|---|', ...rows].join('\n');
}

/** One entry of `metadata` on validation failures: what was wrong and where. */
export interface ErrorDetail {
  /** The parameter, body path or id the problem is about. */
  readonly parameter: string;
  readonly message: string;
}

type CodeFirst = [code: ErrorCode, message: string, details?: readonly ErrorDetail[], options?: ErrorOptions];
type StatusFirst = [status: number, ...CodeFirst];

export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[];

  /** An error answered with its code's own status (ERROR_CODES). */
  constructor(...args: CodeFirst);
  /** An error answered with another status: one the surface keeps from the platform, or a peer's passed on. */
  constructor(...args: StatusFirst);
  constructor(...args: CodeFirst | StatusFirst) {
    const [status, code, message, details = [], options]: StatusFirst = typeof args[0] === 'number' ? (args as StatusFirst) : [ERROR_CODES[args[0]].status, ...(args as CodeFirst)];
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
    super('BAD_REQUEST', message, details);
  }
}

/** Input did not pass validation; `details` lists every offending parameter. */
export class ValidationError extends AppError {
  constructor(message: string, details: readonly ErrorDetail[]) {
    super('VALIDATION_FAILED', message, details);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, details: readonly ErrorDetail[] = []) {
    super('CONFLICT', message, details);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Authentication is required') {
    super('UNAUTHENTICATED', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('FORBIDDEN', message);
  }
}

/** Too many failed attempts; `retryAfter` seconds until the next may succeed. */
export class TooManyRequestsError extends AppError {
  constructor(message: string, readonly retryAfter: number) {
    super('TOO_MANY_REQUESTS', message);
  }
}

export class StoreUnavailableError extends AppError {
  constructor(message: string, cause?: unknown) {
    super('STORE_UNAVAILABLE', message, [], { cause });
  }
}

/** The store's disk is full: writes are refused until space is freed; reads go on. */
export class StoreFullError extends AppError {
  constructor(cause?: unknown) {
    super('STORE_FULL', "The store's disk is full; free space in its data directory and try again", [], { cause });
  }
}

/**
 * A document the store cannot hold: larger than a MongoDB document may be
 * (16 MiB of BSON). Both stores refuse it, so a change SQLite accepts is
 * never one MongoDB refuses.
 */
export class DocumentTooLargeError extends AppError {
  constructor(readonly collection: string, readonly bytes: number, readonly limit: number) {
    super('DOCUMENT_TOO_LARGE', `The ${collection} document would take ${bytes} bytes; a stored document may take at most ${limit}`);
  }
}

/**
 * A page whose documents, as stored, come to more than a caller's search may
 * carry at once (`maxBytes` of the query). The store measures the page before
 * it reads any document, so a page of large documents costs neither the
 * memory nor the time of building it; `fits` is how many of the page's first
 * documents fit, which the caller can ask for instead.
 */
export class PageTooLargeError extends AppError {
  constructor(readonly maxBytes: number, readonly fits: number) {
    const message = `This page's documents come to more than the ${mib(maxBytes)} MiB one page may carry (as stored); ask for at most ${Math.max(1, fits)} (limit=${Math.max(1, fits)}) or narrow the query`;
    super('VALIDATION_FAILED', message, [{ parameter: 'limit', message }]);
  }
}

function mib(bytes: number): string {
  const m = bytes / 1024 / 1024;
  return m >= 10 ? m.toFixed(0) : m.toFixed(1);
}

/**
 * The store refused a write that would duplicate a unique key. Services that
 * expect it name the field in their own words; one that does not still
 * answers 409 rather than 500. The store knows the index, not the caller's
 * parameter, so there are no details.
 */
export function duplicateKeyConflict(err: DuplicateKeyError): ConflictError {
  const what = err.key === '_id' ? 'id' : err.key;
  return new ConflictError(`Another document in ${err.collection} has the same ${what}; the write was refused`);
}

/** Normalises anything thrown into an AppError; unknown errors become a 500. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof DuplicateKeyError) return duplicateKeyConflict(err);
  const e = err as { status?: unknown; expose?: unknown; message?: unknown; type?: unknown } | null;
  // CASE: errors raised by Koa and the body parser carry status/expose (http-errors).
  if (e && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true) {
    const message = typeof e.message === 'string' ? e.message : 'Bad request';
    if (e.status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    if (e.type === 'entity.parse.failed') return new AppError('INVALID_JSON', `Request body is not valid JSON: ${message}`);
    return new AppError(e.status, e.status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', message);
  }
  return new AppError('INTERNAL', 'Internal error', [], { cause: err });
}
