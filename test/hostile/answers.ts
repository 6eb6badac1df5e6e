/**
 * What every answer to a hostile request must look like: a 4xx (a read the
 * validators accepted may also succeed), the stable error code in
 * `X-Error-Code`, and the error shape of the surface (docs/errors.md,
 * kernel/http/error-handler.ts); legacy operations answer the legacy way
 * (docs/gateway.md). Also reads the captured logs for internal failures.
 */
import { readFileSync } from 'node:fs';
import type { ResponseShape } from '../../kernel/http/route.ts';
import { isPlainObject } from '../../kernel/objects.ts';
import type { Answer } from './wire.ts';

/** The stable codes and their statuses, read from the table of docs/errors.md so the test holds the docs to account. */
/** Each documented code with the statuses the table gives it: its own first, then any others (`400, 415`). */
export const STABLE_CODES: ReadonlyMap<string, readonly number[]> = new Map(
  [...readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8').matchAll(/^\| `([A-Z_]+)` \| (\d{3}(?:, \d{3})*) \|/gm)].map((m) => [m[1]!, m[2]!.split(', ').map(Number)]),
);

const OAUTH_ERRORS = new Set(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope']);

/** The surface an answer is in when no route record says: the operations-manager prefix, else plain. */
export function shapeOfPath(pathname: string): ResponseShape {
  return pathname === '/operations-manager' || pathname.startsWith('/operations-manager/') ? 'operations-manager' : 'plain';
}

function keys(v: Record<string, unknown>): string {
  return Object.keys(v).sort().join(',');
}

function detailsProblem(list: unknown): string | null {
  if (!Array.isArray(list)) return 'details are not a list';
  const bad = list.find((d) => !isPlainObject(d) || typeof d['parameter'] !== 'string' || typeof d['message'] !== 'string');
  return bad === undefined ? null : `a detail is not {parameter, message}: ${JSON.stringify(bad)}`;
}

/** Problems with an error answer of the core (directly or passed through); empty when it is right. */
export function errorShapeProblems(answer: Answer, shape: ResponseShape, head: boolean): string[] {
  const problems: string[] = [];
  const code = answer.headers['x-error-code'];
  if (typeof code !== 'string') problems.push('no X-Error-Code header');
  else if (code === 'INTERNAL') problems.push('X-Error-Code is INTERNAL');
  else if (!STABLE_CODES.has(code)) problems.push(`X-Error-Code ${code} is not a documented stable code`);
  else if (!STABLE_CODES.get(code)!.includes(answer.status)) problems.push(`X-Error-Code ${code} is documented with status ${STABLE_CODES.get(code)!.join(' or ')}, answered ${answer.status}`);
  if (head) return problems;
  const body = answer.json;
  if (!isPlainObject(body)) return [...problems, `the body is not a JSON object: ${answer.text.slice(0, 200)}`];
  if (shape === 'operations-manager') {
    if (keys(body) !== 'data,message,metadata') problems.push(`operations-manager error has keys ${keys(body)}`);
    if (typeof body['message'] !== 'string' || body['message'] === '') problems.push('message is not a non-empty string');
    if (body['data'] !== null) problems.push('data is not null');
    if (!isPlainObject(body['metadata'])) problems.push('metadata is not an object');
    else if ('errors' in body['metadata']) {
      const p = detailsProblem(body['metadata']['errors']);
      if (p) problems.push(`metadata.errors: ${p}`);
    }
  } else if (shape === 'plain') {
    if (keys(body) !== 'code,details,message') problems.push(`plain error has keys ${keys(body)}`);
    if (typeof body['message'] !== 'string' || body['message'] === '') problems.push('message is not a non-empty string');
    if (body['code'] !== code) problems.push(`code ${String(body['code'])} differs from X-Error-Code ${String(code)}`);
    const p = detailsProblem(body['details']);
    if (p) problems.push(p);
  } else {
    if (keys(body) !== 'error,error_description') problems.push(`oauth error has keys ${keys(body)}`);
    if (!OAUTH_ERRORS.has(String(body['error']))) problems.push(`oauth error ${String(body['error'])} is not an RFC 6749 error code`);
    if (typeof body['error_description'] !== 'string') problems.push('error_description is not a string');
  }
  return problems;
}

/**
 * Problems with a core answer. `mayRead`: the validators accepted a read,
 * so success is allowed too; otherwise only a 4xx is right.
 */
export function coreAnswerProblems(answer: Answer, shape: ResponseShape, options: { mayRead: boolean; head: boolean }): string[] {
  if (answer.status >= 500 || answer.status < 200) return [`status ${answer.status}: ${answer.text.slice(0, 300)}`];
  if (answer.status < 400) return options.mayRead ? [] : [`status ${answer.status} for a request that carries a defect: ${answer.text.slice(0, 300)}`];
  return errorShapeProblems(answer, shape, options.head);
}

/** Statuses a legacy operation may answer besides its legacy 500 (docs/gateway.md, docs/decisions.md D7, D17, D18). */
// 400 only for a caller's path the gateway refuses to pass on (docs/errors.md, "Legacy operations").
const LEGACY_STATUSES = new Set([400, 401, 403, 404, 405, 410, 413, 429, 500]);

/**
 * Problems with the answer of a legacy operation: a plain JSON string that
 * names what went wrong (never the generic "Internal error"), with one of the
 * documented statuses; a 2xx only where the caller could only read.
 */
export function legacyAnswerProblems(answer: Answer, options: { maySucceed: boolean }): string[] {
  if (answer.status >= 200 && answer.status < 300) return options.maySucceed ? [] : [`status ${answer.status} for a request that carries a defect: ${answer.text.slice(0, 300)}`];
  const problems: string[] = [];
  if (!LEGACY_STATUSES.has(answer.status)) problems.push(`status ${answer.status} is not one a legacy operation answers`);
  if (typeof answer.json !== 'string') problems.push(`the body is not a JSON string: ${answer.text.slice(0, 200)}`);
  else if (answer.json === 'Internal error' || answer.json.trim() === '') problems.push(`the message says nothing: ${JSON.stringify(answer.json)}`);
  const code = answer.headers['x-error-code'];
  if (code !== undefined && (code === 'INTERNAL' || typeof code !== 'string' || !STABLE_CODES.has(code))) problems.push(`X-Error-Code ${String(code)}`);
  return problems;
}

/** Log lines from `from` on that record an internal failure (error level, or the INTERNAL code). */
export function internalFailures(logs: readonly string[], from = 0): string[] {
  return logs.slice(from).filter((line) => {
    try {
      const entry = JSON.parse(line) as { level?: unknown; code?: unknown };
      return entry.level === 'error' || entry.code === 'INTERNAL';
    } catch {
      return true;
    }
  });
}
