/**
 * Platform releases (`2021.2`: year, then number) and the release calendar
 * that dates them. Both services judge releases: the core for what a release
 * still accepts (Platform.admin, alarmProps, lenient job variables), the
 * gateway for deprecations, removals and the Deprecation (RFC 9745) and
 * Sunset (RFC 8594) headers; so the rule lives here once, with one strictness.
 */
import { readFileSync } from 'node:fs';

const RELEASE = /^(\d{4})\.(\d+)$/;

export function isRelease(text: string): boolean {
  return RELEASE.test(text);
}

function parts(release: string): readonly [number, number] {
  const match = RELEASE.exec(release);
  // Every release compared comes from validated config, the mapping table or a constant: anything else is a bug.
  if (!match) throw new Error(`not a release: ${JSON.stringify(release)} (expected year.number, like 2022.1)`);
  return [Number(match[1]), Number(match[2])];
}

/** Orders releases numerically, year then number: 2022.10 comes after 2022.2. Throws on text that is not a release. */
export function compareReleases(a: string, b: string): number {
  const [ya, na] = parts(a);
  const [yb, nb] = parts(b);
  return ya - yb || na - nb;
}

export interface ReleaseCalendar {
  /** Midnight UTC of the day the release came out. */
  dateOf(release: string): Date;
  has(release: string): boolean;
}

/** Reads a calendar file (`{"releases": {"2021.2": "2021-10-29"}}`); a malformed entry stops the start. */
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
