/**
 * What the gateway decides about a legacy call before it runs anything, as
 * pure functions: whether the operation is still served (its removal release
 * against the configured one, and brownout windows), what its deprecation
 * headers say, what a refusal says, and which credentials the caller sent.
 * The dispatcher only applies them; their tests need no server.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Credentials } from '../core-client.ts';
import type { Entry } from '../mapping/types.ts';
import { compareReleases } from '../releases.ts';
import type { ReleaseCalendar } from '../releases.ts';

export interface Brownout {
  /** Entry ids or operation names, or `*` for every deprecated operation. */
  readonly operations: readonly string[];
  readonly from: string;
  readonly until: string;
}

/** When one entry is served, read once at start. */
export interface Serving {
  /** Removed at the configured release: refused at every call. */
  readonly removed: boolean;
  /** Its brownout windows, as [from, until) in epoch ms. */
  readonly windows: ReadonlyArray<readonly [from: number, until: number]>;
}

export function servingOf(entry: Entry, release: string, brownouts: readonly Brownout[]): Serving {
  return {
    removed: compareReleases(release, entry.removed) >= 0,
    windows: brownouts
      .filter((b) => b.operations.includes('*') || b.operations.includes(entry.id) || b.operations.includes(entry.operation))
      .map((b) => [Date.parse(b.from), Date.parse(b.until)] as const),
  };
}

/** Refused at `now`: removed, or inside a brownout window. */
export function isGone(serving: Serving, now: number): boolean {
  return serving.removed || serving.windows.some(([from, until]) => from <= now && now < until);
}

/** The `Deprecation` (RFC 9745) and `Sunset` (RFC 8594) values of an entry, the same on every answer. */
export function deprecationValues(entry: Entry, calendar: ReleaseCalendar): { readonly deprecation: string; readonly sunset: string } {
  return {
    deprecation: `@${Math.floor(calendar.dateOf(entry.deprecated).getTime() / 1000)}`,
    sunset: calendar.dateOf(entry.removed).toUTCString(),
  };
}

/** What a removed operation answers: what it was, when it went, and what to call instead. */
export function goneMessage(entry: Entry): string {
  const replacement = entry.replacement ? `use ${entry.replacement.method} ${entry.replacement.path} instead` : 'it has no replacement';
  const route = `${entry.legacy.method} ${entry.legacy.path}`;
  // Platform-core operations are named by their route already.
  const what = entry.operation === route ? route : `${entry.operation} (${route})`;
  return `${what} was removed in release ${entry.removed}; ${replacement}`;
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
