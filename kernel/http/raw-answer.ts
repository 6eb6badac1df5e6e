/**
 * Answers written straight on node:http, outside Koa: the gateway's legacy
 * calls and its pass-through run there because Koa's dispatch cost them more
 * than their own work (BENCHMARKS.md). One writer for a whole answer and one
 * for an error in a surface's shape, so the headers every answer carries and
 * every error carries are written in one place, as the Koa middleware writes
 * them for the routes inside Koa. A legacy error, whose body is a bare JSON
 * string, is `writeJson` with `errorHeaders` (gateway/src/legacy/dispatch.ts).
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { TooManyRequestsError } from '../errors.ts';
import type { AppError } from '../errors.ts';
import { renderError } from './error-handler.ts';
import type { ResponseShape } from './route.ts';

/** What every answer carries: no sniffing, no framing, no referrer leaks. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
});

/** The headers an error answer adds to its body's: the stable code, never cached, and what the caller may do next. */
export function errorHeaders(err: AppError): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'X-Error-Code': err.code, 'Cache-Control': 'no-store' };
  if (err instanceof TooManyRequestsError) headers['Retry-After'] = String(err.retryAfter);
  if (err.status === 401) headers['WWW-Authenticate'] = 'Bearer, Basic realm="iap"';
  return headers;
}

/**
 * Writes a whole JSON answer, unless one has already begun (then the socket
 * is dropped, as a half-written answer must not look whole). `headers` is the
 * caller's own literal: it is written as given, never copied.
 */
export function writeJson(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, payload: string | Buffer, method: string | undefined): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (res.destroyed) return;
  headers['Content-Type'] = 'application/json; charset=utf-8';
  headers['Content-Length'] = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  res.writeHead(status, headers);
  res.end(method === 'HEAD' ? undefined : payload);
}

/** Writes an error in `surface`'s shape (error-handler.ts), with the error headers. */
export function writeError(res: ServerResponse, shape: ResponseShape, err: AppError, method: string | undefined): void {
  writeJson(res, err.status, errorHeaders(err), JSON.stringify(renderError(shape, err)), method);
}
