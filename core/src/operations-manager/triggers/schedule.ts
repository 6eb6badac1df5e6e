/**
 * When schedule triggers run. A run is "on time" when the scheduler sees it
 * within the grace period after its time; older ones were missed (the
 * platform was down, or the trigger was due while every process was busy).
 * `processMissedRuns: 'last'` runs once for any number of missed windows;
 * `'none'` skips them and waits for the next window.
 */
import type { MissedRuns } from './model.ts';

/** How late a run may start and still count as on time. Larger than any sane poll interval. */
export const DEFAULT_GRACE_MS = 60_000;

/** The first window `firstRunAt + k * repeatInterval` (k ≥ 0) at or after `from`; null when a one-off is past. */
export function windowFrom(firstRunAt: number, repeatInterval: number | null, from: number): number | null {
  if (firstRunAt >= from) return firstRunAt;
  if (!repeatInterval) return null;
  return firstRunAt + Math.ceil((from - firstRunAt) / repeatInterval) * repeatInterval;
}

/**
 * `nextRunAt` for a trigger being created, changed or enabled: the next
 * window, counting one that passed within the grace period (a trigger made
 * "due now" runs now). Disabled triggers have none.
 */
export function plannedRun(t: { enabled: boolean; firstRunAt: number; repeatInterval: number | null }, now: number, graceMs: number): number | null {
  if (!t.enabled) return null;
  return windowFrom(t.firstRunAt, t.repeatInterval, now - graceMs);
}

export interface Decision {
  /** Whether to start the automation now. */
  readonly run: boolean;
  readonly nextRunAt: number | null;
}

/** What to do with a trigger whose `nextRunAt` has come. */
export function decide(t: { nextRunAt: number; repeatInterval: number | null; processMissedRuns: MissedRuns }, now: number, graceMs: number): Decision {
  const repeat = t.repeatInterval;
  // The latest window that has come, counted from the one that was due.
  const latest = repeat ? t.nextRunAt + Math.floor((now - t.nextRunAt) / repeat) * repeat : t.nextRunAt;
  const onTime = now - latest <= graceMs;
  const nextRunAt = repeat ? latest + repeat : null;
  return { run: onTime || t.processMissedRuns === 'last', nextRunAt };
}
