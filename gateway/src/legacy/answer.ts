/**
 * What one legacy call answers, decided in order: 410 once the gateway no
 * longer serves the operation (or it is browned out), 401 to a caller the core does not know, 403 to a
 * cross-site write, the body's own refusal, else the rewrite. Every refusal is
 * an AppError with its code (docs/errors.md, "Legacy errors"); the dispatcher
 * writes it the legacy way, a JSON string, with `X-Error-Code`.
 */
import { AppError, ForbiddenError, UnauthenticatedError } from '../../../kernel/index.ts';
import type { Logger } from '../../../kernel/index.ts';
import type { Outcome } from '../audit/recorder.ts';
import type { CallerCheck } from '../audit/callers.ts';
import { runEntry, throttled } from '../mapping/run.ts';
import type { CallCore, Hatch } from '../mapping/run.ts';
import type { Entry } from '../mapping/types.ts';
import type { BodyResult } from './body.ts';
import { goneMessage } from './policy.ts';
import type { ServeEnd } from './serve-until.ts';
import type { LegacyPaging } from '../mapping/pages.ts';

export type Answer =
  | { readonly outcome: 'rewritten'; readonly status: number; readonly body: unknown; readonly warning: string | null }
  | { readonly outcome: Exclude<Outcome, 'rewritten'>; readonly error: AppError };

/** One legacy call, as the dispatcher read it. */
export interface Call {
  readonly entry: Entry;
  /** Until when the gateway serves it (serve-until.ts). */
  readonly end: ServeEnd;
  /** Past that end, or inside a brownout window. */
  readonly gone: boolean;
  readonly caller: CallerCheck;
  readonly params: Record<string, string>;
  readonly query: URLSearchParams;
  readonly callCore: CallCore;
  /** Why a write authenticated by the cookie is refused as cross-site (kernel/http/cross-site.ts), or null. */
  crossSite(): string | null;
  /** Reads the body; asked only once the call is known to run. */
  readBody(): Promise<BodyResult>;
  log(): Logger;
}

export interface Runner {
  readonly hatches: ReadonlyMap<string, Hatch>;
  /** How legacy reads page and how many records one answers (`gateway.upstreamPageMax`, `gateway.legacyMaxRecords`). */
  readonly paging: LegacyPaging;
}

const failed = (error: AppError): Answer => ({ outcome: 'failed', error });

export async function answer(call: Call, runner: Runner): Promise<Answer> {
  const { entry, caller } = call;
  // Removal is public knowledge; anything else is only for callers the core knows.
  if (call.gone) return { outcome: 'refused', error: new AppError('GONE', goneMessage(entry, call.end)) };
  if (caller.kind === 'refused') return failed(new UnauthenticatedError(caller.message));
  const crossSite = call.crossSite();
  if (crossSite !== null) return failed(new ForbiddenError(crossSite));
  const read = await call.readBody();
  // Refused before any call to the core: over the limit 413, any other unreadable body the legacy 500, with its code.
  if ('error' in read) return failed(read.error.status === 413 ? read.error : new AppError(500, read.error.code, read.error.message));
  try {
    const query: Record<string, string> = {};
    for (const [k, v] of call.query) if (k !== 'token') query[k] = v;
    // The core's warnings (a start accepted despite mistyped variables, before 2021.2) reach the legacy caller too.
    const warnings: string[] = [];
    const callCore: CallCore = async (c) => {
      const reply = await call.callCore(c);
      // A lockout ends the call here, whichever step or hatch asked (mapping/run.ts).
      const lockedOut = throttled(reply);
      if (lockedOut) throw lockedOut;
      if (reply.warning) warnings.push(reply.warning);
      return reply;
    };
    const result = await runEntry(entry, { params: call.params, query, body: read.body }, callCore, runner.hatches, runner.paging);
    return { outcome: 'rewritten', status: result.status, body: result.body, warning: warnings.length > 0 ? warnings.join(', ') : null };
  } catch (err) {
    return failed(legacyRefusal(err, call));
  }
}

/** What a failure of the rewrite answers: its own AppError, or INTERNAL (logged) for anything unforeseen. */
export function legacyRefusal(err: unknown, call: Pick<Call, 'entry' | 'log'>): AppError {
  if (err instanceof AppError) return err;
  // encodeURIComponent refuses lone surrogates, which JSON bodies may carry: the caller's mistake, named.
  if (err instanceof URIError) return new AppError(500, 'BAD_REQUEST', 'The request holds text that is not valid Unicode (an unpaired surrogate) where the call it becomes puts it in a URL');
  call.log().error('legacy operation failed', { entry: call.entry.id, error: err instanceof Error ? err.stack : String(err) });
  return new AppError('INTERNAL', 'Internal error', [], { cause: err });
}

/**
 * The legacy body of an error: its message as a JSON string. Shown for every
 * code but INTERNAL, even at 500 (unlike `expose`, which hides every 5xx):
 * the legacy form has no other place for what went wrong.
 */
export function legacyBody(err: AppError): string {
  return err.code === 'INTERNAL' ? 'Internal error' : err.message;
}
