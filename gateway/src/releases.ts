/**
 * Releases (`2021.2`) compared as year then number, and the release calendar
 * that dates them, for the Deprecation (RFC 9745) and Sunset (RFC 8594) headers.
 */
import { readFileSync } from 'node:fs';

const RELEASE = /^(\d{4})\.(\d+)$/;

export function isRelease(text: string): boolean {
  return RELEASE.test(text);
}

export function compareReleases(a: string, b: string): number {
  const [, ya, na] = RELEASE.exec(a)!;
  const [, yb, nb] = RELEASE.exec(b)!;
  return Number(ya) - Number(yb) || Number(na) - Number(nb);
}

export interface ReleaseCalendar {
  /** Midnight UTC of the day the release came out. */
  dateOf(release: string): Date;
  has(release: string): boolean;
}

export function loadCalendar(file: string): ReleaseCalendar {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { releases?: Record<string, string> };
  const dates = new Map<string, Date>();
  for (const [release, day] of Object.entries(parsed.releases ?? {})) {
    const date = new Date(`${day}T00:00:00Z`);
    if (!isRelease(release) || Number.isNaN(date.getTime())) throw new Error(`${file}: releases.${release} must map a release like 2021.2 to a date like 2021-10-29`);
    dates.set(release, date);
  }
  return {
    has: (release) => dates.has(release),
    dateOf(release) {
      const date = dates.get(release);
      if (!date) throw new Error(`the release calendar has no date for ${release}`);
      return date;
    },
  };
}
