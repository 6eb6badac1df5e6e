/**
 * The request body on the common path: a JSON object or array of declared
 * length, in UTF-8, not compressed. It is read here with one listener per
 * event and parsed as @koa/bodyparser (co-body, strict, bourne with
 * `protoAction: 'error'`) parses it; every other body goes to `fallback`,
 * the body parser itself, which keeps its type, charset, encoding, size and
 * stream rules. Saving the body parser's per-request machinery (type-is,
 * inflation, raw-body, option clones) is what this is for (docs/http-path.md).
 *
 * An answer here is the fallback's answer: `test/core/http/json-body.test.ts`
 * sends the same requests to both.
 */
import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';
import type { AppError } from '../../../kernel/index.ts';

export interface JsonBodyOptions {
  /** The body parser's own limit, in bytes; a longer body goes to the fallback, which refuses it. */
  readonly limit: number;
  /** Reads every body this does not: @koa/bodyparser, configured as before. */
  readonly fallback: Middleware;
  /** The error a failed read or parse is answered with: the body parser's onError mapping. */
  readonly onError: (err: Error) => AppError;
}

/** The methods whose bodies the body parser reads (its default `parsedMethods`). */
const PARSED = new Set(['POST', 'PUT', 'PATCH']);
/** Exactly these content types are read here; their charset is the one the body parser assumes anyway. */
const PLAIN_JSON = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
/** co-body's strict test: only an object or an array is a body. */
const OBJECT_OR_ARRAY = /^[\x20\x09\x0a\x0d]*(\[|\{)/;
/** bourne's test for a text that may hold a `__proto__` key, escaped or not. */
const SUSPECT = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const DECIMAL = /^[0-9]{1,15}$/;

/** An error carrying the status the body parser's reader gives it. */
function readFailure(message: string): Error {
  return Object.assign(new Error(message), { status: 400 });
}

/**
 * The declared body, whole; refused as raw-body refuses a stream that ends short or aborts. The
 * listeners are left on the request, which ends with them. They are passed inline, not named:
 * tsx gives every named closure its name with a property definition, on every request.
 */
function readDeclared(req: IncomingMessage, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    req.on('end', () => {
      if (received !== length) reject(readFailure('request size did not match content length'));
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    });
    req.on('aborted', () => reject(readFailure('request aborted')));
    req.on('error', reject);
  });
}

/** Throws bourne's error when a parsed body holds an own `__proto__` key at any depth; walks without recursion. */
function refuseProtoKeys(parsed: object): void {
  const stack: unknown[] = [parsed];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Object.hasOwn(node, '__proto__')) throw new SyntaxError('Object contains forbidden prototype property');
    for (const value of Object.values(node)) if (value !== null && typeof value === 'object') stack.push(value);
  }
}

/** The body as co-body's strict JSON parse answers it; throws its errors. */
export function parseJsonBody(text: string): unknown {
  if (text === '') return {};
  if (!OBJECT_OR_ARRAY.test(text)) throw new SyntaxError('invalid JSON, only supports object and array');
  const parsed: unknown = JSON.parse(text);
  if (parsed !== null && typeof parsed === 'object' && SUSPECT.test(text)) refuseProtoKeys(parsed);
  return parsed;
}

export function jsonBody(options: JsonBodyOptions): Middleware {
  const { limit, fallback, onError } = options;
  return async function jsonBodyMiddleware(ctx, next) {
    const req = ctx.req;
    const headers = req.headers;
    const type = headers['content-type'];
    const declared = headers['content-length'];
    if (
      !PARSED.has(req.method ?? '') ||
      type === undefined ||
      !PLAIN_JSON.has(type.toLowerCase()) ||
      headers['content-encoding'] !== undefined ||
      declared === undefined ||
      !DECIMAL.test(declared) ||
      Number(declared) > limit ||
      req.closed ||
      (ctx.request as { body?: unknown }).body !== undefined
    ) {
      return fallback(ctx, next);
    }
    let text: string;
    let parsed: unknown;
    try {
      const raw = await readDeclared(req, Number(declared));
      text = raw.toString('utf8');
      // iconv-lite, which decodes for the body parser, drops a leading byte-order mark.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      parsed = parseJsonBody(text);
    } catch (err) {
      throw onError(err instanceof Error ? err : new Error(String(err)));
    }
    const request = ctx.request as { body?: unknown; rawBody?: string };
    request.body = parsed;
    request.rawBody = text;
    return next();
  };
}
