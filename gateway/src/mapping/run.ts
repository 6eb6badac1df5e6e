/**
 * Runs one entry's steps for one legacy request. The steps are a closed set:
 * `call` (a request to the core, built from templates), `translateQuery`,
 * and one that answers: `answer` (a template), `code` (a named escape hatch)
 * or `unavailable`. Everything else an entry does, moving fields, wrapping a
 * value in a list, building query strings, unwrapping the envelope, the
 * results wrapper, a boolean answer, is said by its templates.
 *
 * What fails is an AppError: `LegacyFailure` (LEGACY_FAILED) when the
 * gateway cannot carry the call out, and `legacyError` for a refusal of the
 * core, the same for steps and hatches (docs/errors.md, "Legacy errors").
 */
import { pluck, RawJson } from './pluck.ts';
import { fill, fillPath, lastPath, MissingPathValue } from './template.ts';
import type { Scope } from './template.ts';
import { translateQuery, UntranslatableQuery } from './translate.ts';
import type { Entry, LegacyFamily, Method, Step } from './types.ts';
import type { LegacyPaging } from './pages.ts';
import { AppError, readError, setOwn, TooManyRequestsError } from '../../../kernel/index.ts';

export interface CoreCall {
  readonly method: Method;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly body: unknown;
}

export interface CoreAnswer {
  readonly status: number;
  readonly body: unknown;
  /** The answer as the core wrote it, when that was JSON: an answer that is a field of it is copied from here. */
  readonly json?: Buffer;
  /** The core's `Warning` header, passed on to the legacy caller. */
  readonly warning?: string;
  /** The core's `Retry-After` header (a 429 lockout), passed on with the legacy 429. */
  readonly retryAfter?: string;
  /** The core's `X-Error-Code` on an error answer. */
  readonly code?: string;
}

/** Sends a call to the core with the legacy caller's own credentials. */
export type CallCore = (call: CoreCall) => Promise<CoreAnswer>;

/** The gateway cannot carry a legacy operation out (the message names the part): a JSON string with status 500. */
export class LegacyFailure extends AppError {
  constructor(message: string) {
    super('LEGACY_FAILED', message);
  }
}

/**
 * A refusal of the core as the legacy error, for `call` steps, legacy
 * searches and hatches alike: the core's own code (UPSTREAM_FAILED when it
 * named none) and message. Legacy errors are 500 (docs/decisions.md D18),
 * except missing credentials and roles, which stay 401 and 403, and a
 * lockout, which stays 429 with the core's Retry-After so a client waits
 * rather than retries (docs/auth.md).
 */
export function legacyError(answer: CoreAnswer): AppError {
  const { code, message, details } = readError(answer.status, answer.code, answer.body);
  if (answer.status === 429) {
    const seconds = Number(answer.retryAfter);
    return answer.retryAfter !== undefined && Number.isSafeInteger(seconds) && seconds >= 0 ? new TooManyRequestsError(message, seconds) : new AppError('TOO_MANY_REQUESTS', message);
  }
  if (answer.status === 401) return new AppError(401, code ?? 'UNAUTHENTICATED', message, details);
  if (answer.status === 403) return new AppError(403, code ?? 'FORBIDDEN', message, details);
  return new AppError(500, code ?? 'UPSTREAM_FAILED', message, details);
}

/** The core refused the caller for too many failed logins: the legacy call stops there, whichever step or hatch asked. */
export function throttled(answer: CoreAnswer): AppError | null {
  return answer.status === 429 ? legacyError(answer) : null;
}

export interface HatchApi {
  readonly call: CallCore;
  /** How legacy reads page (`gateway.upstreamPageMax`) and how much one answers (`gateway.legacyMaxRecords`): pages.ts. */
  readonly paging: LegacyPaging;
}

/** An escape hatch: an operation whose rewrite the generic steps cannot say (docs/gateway.md, "Escape hatches"). */
export type Hatch = (args: unknown, scope: Scope, api: HatchApi) => Promise<CoreAnswer>;

/**
 * A hatch as the registry (hatches/index.ts) lists it. `with` is the JSON
 * Schema of its filled arguments: the loader checks every entry's `with`
 * template against it, so a wrong argument is a start-up error naming the
 * entry rather than a legacy call failing later. `why` is what the generic
 * steps cannot say; docs/gateway.md's hatch table repeats it.
 */
export interface HatchRecord {
  readonly name: string;
  readonly family: LegacyFamily;
  readonly why: string;
  readonly with: Readonly<Record<string, unknown>>;
  readonly run: Hatch;
}

export interface LegacyRequest {
  readonly params: Record<string, string>;
  readonly query: Record<string, string>;
  readonly body: unknown;
}

/** The query of a core call; keys that come from the caller's data are set as own keys, never through a prototype. */
function asQuery(value: unknown, out: Record<string, string> = {}): Record<string, string> {
  if (value === undefined || value === null) return out;
  if (typeof value !== 'object' || Array.isArray(value)) throw new LegacyFailure('The mapping built a query that is not an object');
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    if (typeof v === 'object' && !Array.isArray(v)) asQuery(v, out);
    else setOwn(out, k, Array.isArray(v) ? v.map((x) => String(x).replace(/,/g, '%2C')).join(',') : String(v));
  }
  return out;
}

/** When the next step answers a field of this call's answer (`{last.data}`), that answer as the field's bytes. */
function copiedAnswer(next: Step | undefined, answer: CoreAnswer): CoreAnswer | null {
  if (!answer.json || !next || !('answer' in next)) return null;
  const keys = lastPath(next.answer);
  const bytes = keys && pluck(answer.json, keys);
  return bytes ? { status: next.status ?? 200, body: new RawJson(bytes) } : null;
}

export async function runEntry(entry: Entry, request: LegacyRequest, callCore: CallCore, hatches: ReadonlyMap<string, Hatch>, paging: LegacyPaging): Promise<CoreAnswer> {
  const calls: unknown[] = [];
  const scope: Scope = { params: request.params, query: request.query, body: request.body ?? {}, vars: {}, last: null, calls };
  for (let i = 0; i < entry.steps.length; i += 1) {
    const step = entry.steps[i]!;
    if ('call' in step) {
      let path: string;
      try {
        path = fillPath(step.call.path, scope);
      } catch (err) {
        if (err instanceof MissingPathValue) throw new LegacyFailure(err.message);
        throw err;
      }
      const answer = await callCore({ method: step.call.method, path, query: asQuery(fill(step.call.query, scope)), body: fill(step.call.body, scope) });
      if ((answer.status < 200 || answer.status > 299) && !(step.call.accept ?? []).includes(answer.status)) {
        throw legacyError(answer);
      }
      const copied = copiedAnswer(entry.steps[i + 1], answer);
      if (copied) return copied;
      scope['last'] = answer.body;
      calls.push(answer.body);
    } else if ('translateQuery' in step) {
      try {
        setOwn(scope['vars'] as Record<string, unknown>, step.translateQuery.into, translateQuery(fill(`{${step.translateQuery.from}}`, scope), step.translateQuery.type));
      } catch (err) {
        if (err instanceof UntranslatableQuery) throw new LegacyFailure(`This query cannot be expressed in the operations-manager search: ${err.message}`);
        throw err;
      }
    } else if ('answer' in step) {
      return { status: step.status ?? 200, body: fill(step.answer, scope) ?? null };
    } else if ('code' in step) {
      return hatches.get(step.code)!(fill(step.with, scope), scope, { call: callCore, paging });
    } else {
      throw new LegacyFailure(step.unavailable);
    }
  }
  throw new LegacyFailure(`${entry.operation} has no answering step`);
}
