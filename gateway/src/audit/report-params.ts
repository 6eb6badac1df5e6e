/**
 * The report's parameters, read the same way by the HTTP endpoint and the
 * command line, so both refuse the same mistakes with the same words.
 */
import { readDate, ValueError } from '../../../kernel/index.ts';
import type { ErrorDetail } from '../../../kernel/index.ts';
import { compareReleases, isRelease } from '../releases.ts';
import type { ReleaseCalendar } from '../releases.ts';

export type Format = 'json' | 'csv' | 'html' | 'text';

export interface ReportParams {
  readonly format: Format;
  readonly target: string;
  readonly since: number | null;
  readonly until: number | null;
}

export interface RawParams {
  readonly format?: string | undefined;
  readonly target?: string | undefined;
  readonly since?: string | undefined;
  readonly until?: string | undefined;
}

export type ParamsResult = { readonly ok: true; readonly params: ReportParams } | { readonly ok: false; readonly problems: readonly ErrorDetail[] };

/**
 * The release after `release` in the calendar: the next of the same year,
 * else the first of the next year; the release itself when the calendar
 * knows neither (nothing is then reported as breaking later).
 */
export function nextRelease(calendar: ReleaseCalendar, release: string): string {
  const [year, number] = release.split('.').map(Number) as [number, number];
  for (const candidate of [`${year}.${number + 1}`, `${year + 1}.1`]) if (calendar.has(candidate)) return candidate;
  return release;
}

function instant(raw: string | undefined, name: string, problems: ErrorDetail[]): number | null {
  if (raw === undefined) return null;
  try {
    return readDate(raw);
  } catch (err) {
    if (!(err instanceof ValueError)) throw err;
    problems.push({ parameter: name, message: `${err.message}; for example 2024-05-01 or 2024-05-01T12:00:00Z` });
    return null;
  }
}

export function readParams(raw: RawParams, options: { formats: readonly Format[]; defaultFormat: Format; calendar: ReleaseCalendar; release: string }): ParamsResult {
  const problems: ErrorDetail[] = [];
  const format = (raw.format ?? options.defaultFormat) as Format;
  if (!options.formats.includes(format)) problems.push({ parameter: 'format', message: `must be one of ${options.formats.join(', ')}` });
  const target = raw.target ?? nextRelease(options.calendar, options.release);
  if (!isRelease(target)) problems.push({ parameter: 'target', message: 'must be a release like 2022.2 (year.number)' });
  else if (compareReleases(target, options.release) < 0) problems.push({ parameter: 'target', message: `must not be earlier than the configured release ${options.release}` });
  const since = instant(raw.since, 'since', problems);
  const until = instant(raw.until, 'until', problems);
  if (since !== null && until !== null && until <= since) problems.push({ parameter: 'until', message: 'must be later than since' });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, params: { format, target, since, until } };
}

/** A one-line description of the refused parameters, for messages. */
export function describeProblems(problems: readonly ErrorDetail[]): string {
  return problems.map((p) => `${p.parameter} ${p.message}`).join('; ');
}

