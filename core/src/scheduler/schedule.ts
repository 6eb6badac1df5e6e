/**
 * Schedule math shared by everything that repeats: a repeat interval is
 * either a human interval (`"1 day"`, `"30 minutes"`, Agenda's notation), a
 * cron expression (5 fields, or 6 with seconds first, or `@daily`-style
 * nicknames), or a number of milliseconds. Cron is tried first, as Agenda
 * does, so `@yearly` means the cron nickname, not "one year from now".
 *
 * Cron expressions are read in `timezone` (an IANA name); without one, in
 * UTC, so every core sharing a store computes the same instants whatever the
 * host's zone. Human intervals are fixed durations and ignore the zone.
 */
import { Cron } from 'croner';
import humanInterval from 'human-interval';

export type RepeatInterval = string | number;

export type Repeat =
  | { readonly kind: 'interval'; readonly ms: number }
  | { readonly kind: 'cron'; readonly cron: Cron };

/** A repeat interval or timezone that cannot be used; the message says why, for a 400. */
export class ScheduleError extends Error {
  override name = 'ScheduleError';
}

const MAX_LENGTH = 200;

/** True for a timezone the runtime knows (`Europe/Berlin`, `UTC`). */
export function isValidTimezone(timezone: string): boolean {
  if (timezone.length === 0 || timezone.length > 100) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

function looksLikeCron(text: string): boolean {
  // Croner also reads ISO dates as one-off patterns; only field lists and nicknames are cron here.
  if (text.startsWith('@')) return true;
  const parts = text.split(/\s+/).length;
  return parts === 5 || parts === 6;
}

function tryCron(text: string, timezone: string): { cron: Cron } | { error: string } {
  try {
    return { cron: new Cron(text, { paused: true, timezone, mode: '5-or-6-parts' }) };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/** Reads a repeat interval; throws ScheduleError naming the problem. */
export function parseRepeat(repeatInterval: RepeatInterval, timezone?: string | null): Repeat {
  const zone = timezone ?? 'UTC';
  if (!isValidTimezone(zone)) throw new ScheduleError(`repeatTimezone ${JSON.stringify(timezone)} is not a known IANA timezone (for example Europe/Berlin or UTC)`);
  if (typeof repeatInterval === 'number') {
    if (!Number.isFinite(repeatInterval) || repeatInterval <= 0) throw new ScheduleError('repeatInterval must be a positive number of milliseconds');
    return { kind: 'interval', ms: repeatInterval };
  }
  const text = repeatInterval.trim();
  if (text.length === 0 || text.length > MAX_LENGTH) throw new ScheduleError(`repeatInterval must be 1 to ${MAX_LENGTH} characters`);
  let cronError: string | null = null;
  if (looksLikeCron(text)) {
    const parsed = tryCron(text, zone);
    if ('cron' in parsed) {
      // A pattern that can never match (31 February) would leave the schedule stuck.
      if (parsed.cron.nextRun(new Date(0)) === null) throw new ScheduleError(`repeatInterval ${JSON.stringify(text)} is a cron expression that never matches`);
      return { kind: 'cron', cron: parsed.cron };
    }
    cronError = parsed.error;
  }
  const ms = humanInterval(text.toLowerCase());
  if (typeof ms === 'number' && Number.isFinite(ms) && ms > 0) return { kind: 'interval', ms };
  const why = cronError ? ` (as cron: ${cronError})` : '';
  throw new ScheduleError(`repeatInterval ${JSON.stringify(text)} is neither a human interval such as "1 day" or "30 minutes" nor a cron expression such as "0 9 * * 1-5"${why}`);
}

/** The problem with a repeat interval and timezone, or null when they can be used. */
export function checkRepeat(repeatInterval: RepeatInterval, timezone?: string | null): string | null {
  try {
    parseRepeat(repeatInterval, timezone);
    return null;
  } catch (err) {
    if (err instanceof ScheduleError) return err.message;
    throw err;
  }
}

function toMs(at: Date | number): number {
  return typeof at === 'number' ? at : at.getTime();
}

/**
 * The first run strictly after `from`: `from` plus the interval, or the
 * cron expression's next match. Null only for a cron expression with no
 * match left.
 */
export function nextRun(repeatInterval: RepeatInterval, from: Date | number, timezone?: string | null): Date | null {
  const repeat = parseRepeat(repeatInterval, timezone);
  const start = toMs(from);
  if (repeat.kind === 'interval') return new Date(start + repeat.ms);
  return repeat.cron.nextRun(new Date(start));
}

/**
 * The next run of a schedule whose run due at `scheduledAt` happened at
 * `now`. Intervals keep their phase (`scheduledAt` plus a whole number of
 * intervals, the first after `now`), so polling delays never add up; cron
 * takes the first match after `now`. Runs missed while nothing was polling
 * are not made up: they collapse into the one that just happened.
 */
export function nextRunAfter(repeatInterval: RepeatInterval, scheduledAt: Date | number, now: Date | number, timezone?: string | null): Date | null {
  const repeat = parseRepeat(repeatInterval, timezone);
  const due = toMs(scheduledAt);
  const at = toMs(now);
  if (repeat.kind === 'cron') return repeat.cron.nextRun(new Date(Math.max(at, due)));
  if (due > at) return new Date(due + repeat.ms);
  const steps = Math.floor((at - due) / repeat.ms) + 1;
  return new Date(due + steps * repeat.ms);
}
