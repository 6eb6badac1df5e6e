/**
 * What the gateway decides about a legacy call before it runs anything, as
 * pure functions: whether the operation is still served (the end of its
 * serving, serve-until.ts, against the configured release or the clock, and
 * brownout windows), what its deprecation
 * headers say, what a refusal says, and which credentials the caller sent.
 * The dispatcher only applies them; their tests need no server.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Credentials } from '../core-client.ts';
import type { Entry } from '../mapping/types.ts';
import type { ReleaseCalendar } from '../releases.ts';
import { describeEnd, instantOf, isPastEnd, scheduleEnd } from './serve-until.ts';
import type { ServeEnd } from './serve-until.ts';

export interface Brownout {
  /** Entry ids or operation names, or `*` for every deprecated operation. */
  readonly operations: readonly string[];
  readonly from: string;
  readonly until: string;
}

/** When one entry is served, read once at start. */
export interface Serving {
  /** Past the end of its serving at the configured release: refused at every call. */
  readonly removed: boolean;
  /** An end that is a date: refused from then on (epoch ms); null when the end is a release. */
  readonly endsAt: number | null;
  /** Its brownout windows, as [from, until) in epoch ms. */
  readonly windows: ReadonlyArray<readonly [from: number, until: number]>;
}

/** `end` defaults to the schedule's: the removal release. */
export function servingOf(entry: Entry, release: string, brownouts: readonly Brownout[], end: ServeEnd = scheduleEnd(entry)): Serving {
  return {
    // A date is judged per call, against the clock the dispatcher is given.
    removed: end.kind === 'release' && isPastEnd(end, release, 0),
    endsAt: end.kind === 'date' ? end.at : null,
    windows: brownouts
      .filter((b) => b.operations.includes('*') || b.operations.includes(entry.id) || b.operations.includes(entry.operation))
      .map((b) => [Date.parse(b.from), Date.parse(b.until)] as const),
  };
}

/** Refused at `now`: past the end of its serving, or inside a brownout window. */
export function isGone(serving: Serving, now: number): boolean {
  return serving.removed || (serving.endsAt !== null && now >= serving.endsAt) || serving.windows.some(([from, until]) => from <= now && now < until);
}

/**
 * The `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) values of an entry, the
 * same on every answer; `Sunset` is when this gateway stops serving it.
 */
export function deprecationValues(entry: Entry, calendar: ReleaseCalendar, end: ServeEnd = scheduleEnd(entry)): { readonly deprecation: string; readonly sunset: string } {
  return {
    deprecation: `@${Math.floor(calendar.dateOf(entry.deprecated).getTime() / 1000)}`,
    // Every end the dispatcher is given is dated: serve-until.ts refuses a release the calendar lacks.
    sunset: new Date(instantOf(end, calendar) ?? calendar.dateOf(entry.removed).getTime()).toUTCString(),
  };
}

/** What a removed operation answers: what it was, when it went (and until when the gateway served it), and what to call instead. */
export function goneMessage(entry: Entry, end: ServeEnd = scheduleEnd(entry)): string {
  const replacement = entry.replacement ? `use ${entry.replacement.method} ${entry.replacement.path} instead` : 'it has no replacement';
  const route = `${entry.legacy.method} ${entry.legacy.path}`;
  // Platform-core operations are named by their route already.
  const what = entry.operation === route ? route : `${entry.operation} (${route})`;
  const served = end.kind === 'release' && end.release === entry.removed ? '' : ` and served by this gateway until ${describeEnd(end)}`;
  return `${what} was removed in release ${entry.removed}${served}; ${replacement}`;
}

/** The credentials a legacy caller sent, each in the form it used; an empty header counts as none. */
export function credentialsOf(headers: IncomingHttpHeaders, query: URLSearchParams): Credentials {
  const authorization = headers['authorization'];
  const cookie = headers['cookie'];
  const token = query.get('token');
  return {
    authorization: typeof authorization === 'string' && authorization !== '' ? authorization : undefined,
    cookie: typeof cookie === 'string' && cookie !== '' ? cookie : undefined,
    token: token ?? undefined,
  };
}
