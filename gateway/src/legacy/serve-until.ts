/**
 * Until when the gateway serves each legacy operation (decision 31,
 * docs/gateway.md "Serving policy"): `PLATFORM_RELEASE` says what the
 * upstream is, and this says how long the gateway keeps rewriting operations
 * the schedule has removed. `GATEWAY_SERVE_UNTIL` covers every operation,
 * `gateway.serveUntil.operations` one entry id at a time; unset, an
 * operation ends at its removal release, as the schedule says.
 *
 * Read and checked once at start, with every problem named; what it answers
 * is pure, so the dispatcher, the audit report and their tests share it.
 */
import { readDate, ValueError } from '../../../kernel/index.ts';
import type { Entry } from '../mapping/types.ts';
import { compareReleases, isRelease } from '../releases.ts';
import type { ReleaseCalendar } from '../releases.ts';

/** The end of an operation's serving: a release (judged against `PLATFORM_RELEASE`) or an instant (judged against the clock). */
export type ServeEnd =
  | { readonly kind: 'release'; readonly release: string }
  | { readonly kind: 'date'; readonly at: number; readonly text: string };

/** `gateway.serveUntil` as the config loader read it. */
export interface ServeUntilConfig {
  readonly all: string | null;
  readonly operations: Readonly<Record<string, string>>;
}

/** An operation's end, from its entry id and removal release (a recorded one too, for entries gone from the table). */
export type EndOf = (entry: Pick<Entry, 'id' | 'removed'>) => ServeEnd;

/** The schedule's end: the removal release. */
export const scheduleEnd = (entry: Pick<Entry, 'removed'>): ServeEnd => ({ kind: 'release', release: entry.removed });

export const SCHEDULE: EndOf = scheduleEnd;

const DAY_FORM = /^\d{4}-\d{2}-\d{2}(?:T.*)?$/;

/** Reads a release or an ISO date; a string naming what is wrong when it is neither, or a release the calendar cannot date. */
export function readEnd(text: string, calendar: ReleaseCalendar): ServeEnd | string {
  if (isRelease(text)) {
    // The Sunset header needs its date.
    return calendar.has(text) ? { kind: 'release', release: text } : `release ${text} has no date in the release calendar (config/releases.json)`;
  }
  if (!DAY_FORM.test(text)) return 'must be a release like 2024.1 or an ISO date like 2024-06-30 (or 2024-06-30T12:00:00Z)';
  try {
    return { kind: 'date', at: readDate(text), text };
  } catch (err) {
    if (!(err instanceof ValueError)) throw err;
    return `${err.message}: must be a release like 2024.1 or an ISO date like 2024-06-30 (or 2024-06-30T12:00:00Z)`;
  }
}

/** When an end falls, in epoch ms; null for a release the calendar cannot date (only recorded entries gone from the table). */
export function instantOf(end: ServeEnd, calendar: ReleaseCalendar): number | null {
  if (end.kind === 'date') return end.at;
  return calendar.has(end.release) ? calendar.dateOf(end.release).getTime() : null;
}

/** Whether `end` falls before `other`: releases by number, anything else by date. */
function isEarlier(end: ServeEnd, other: ServeEnd, calendar: ReleaseCalendar): boolean {
  if (end.kind === 'release' && other.kind === 'release') return compareReleases(end.release, other.release) < 0;
  const a = instantOf(end, calendar);
  const b = instantOf(other, calendar);
  return a !== null && b !== null && a < b;
}

/** How an end reads in messages and reports: `release 2024.1` or the date as configured. */
export function describeEnd(end: ServeEnd): string {
  return end.kind === 'release' ? `release ${end.release}` : end.text;
}

export type ServeUntilResult = { readonly ok: true; readonly endOf: EndOf } | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Checks the setting against the mapping table and the calendar, and answers
 * each operation's end. Only ever later than the schedule: the setting
 * extends serving (brownouts are how an operation is refused early), so a
 * common value leaves an operation the schedule serves longer at its removal,
 * and a per-operation value before the removal is a mistake, refused.
 */
export function readServeUntil(setting: ServeUntilConfig, entries: readonly Entry[], calendar: ReleaseCalendar): ServeUntilResult {
  const problems: string[] = [];
  let all: ServeEnd | null = null;
  if (setting.all !== null) {
    const read = readEnd(setting.all, calendar);
    if (typeof read === 'string') problems.push(`config: gateway.serveUntil.all (GATEWAY_SERVE_UNTIL) ${read}`);
    else all = read;
  }
  const byId = new Map(entries.map((e) => [e.id, e]));
  // A Map, never the configured object: an id such as `constructor` must find nothing that nobody configured.
  const own = new Map<string, ServeEnd>();
  for (const [id, value] of Object.entries(setting.operations)) {
    const at = `config: gateway.serveUntil.operations.${id}`;
    const entry = byId.get(id);
    if (entry === undefined) {
      // An operation name may stand for several entries (finishManualTask has two routes): extending it would extend routes nobody named.
      const named = entries.filter((e) => e.operation === id).map((e) => e.id);
      problems.push(named.length > 0 ? `${at}: key it by entry id, not by operation name (${id} is ${named.join(', ')})` : `${at}: no entry of the mapping table has this id`);
      continue;
    }
    const read = typeof value === 'string' ? readEnd(value, calendar) : 'must be a string';
    if (typeof read === 'string') {
      problems.push(`${at} ${read}`);
      continue;
    }
    if (isEarlier(read, scheduleEnd(entry), calendar)) {
      problems.push(`${at} ends before the operation's removal (release ${entry.removed}); the setting only extends serving, and brownouts (gateway.brownouts) refuse an operation early`);
      continue;
    }
    own.set(id, read);
  }
  if (problems.length > 0) return { ok: false, problems };
  if (all === null && own.size === 0) return { ok: true, endOf: SCHEDULE };
  const common = all;
  return {
    ok: true,
    endOf(entry) {
      const named = own.get(entry.id);
      if (named !== undefined) return named;
      const schedule = scheduleEnd(entry);
      return common !== null && isEarlier(schedule, common, calendar) ? common : schedule;
    },
  };
}

/** Whether an operation with this end answers 410 at `release` and `now` (brownouts aside). */
export function isPastEnd(end: ServeEnd, release: string, now: number): boolean {
  return end.kind === 'release' ? compareReleases(release, end.release) >= 0 : now >= end.at;
}
