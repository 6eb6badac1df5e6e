/**
 * The migration audit report: legacy calls grouped per client and operation,
 * each row saying how urgent the client's migration is, plus the calls over
 * time for the chart. Pure: callers feed calls in (from the audit store or an
 * access log) and render the result themselves. All times are UTC.
 */
import type { Entry } from '../mapping/types.ts';
import type { ReleaseCalendar } from '../releases.ts';
import { instantOf, isPastEnd, SCHEDULE } from '../legacy/serve-until.ts';
import type { EndOf, ServeEnd } from '../legacy/serve-until.ts';
import type { Outcome } from './recorder.ts';

export type RowStatus = 'broken now' | 'breaks at target' | 'deprecated';
export type ClientKind = 'account' | 'clientId' | 'address';

/** One legacy call; an AuditRecord is one, and so is a matched access-log line (whose time may be unknown). */
export interface Call {
  readonly time: number | null;
  readonly operation: string;
  readonly entry: string;
  readonly client: { readonly account: string | null; readonly clientId: string | null; readonly address: string | null; readonly userAgent: string | null };
  readonly outcome: Outcome;
  readonly deprecated: string;
  readonly removed: string;
  readonly replacement: string | null;
}

export interface ReportOptions {
  readonly entries: readonly Entry[];
  /** The platform release the gateway is configured for. */
  readonly release: string;
  readonly target: string;
  /** Until when the gateway serves each operation (legacy/serve-until.ts); the schedule's removal releases by default. */
  readonly endOf?: EndOf;
  /** Dates the target, for operations served until a date; needed only with such an `endOf`. */
  readonly calendar?: ReleaseCalendar;
  /** Inclusive, epoch ms. */
  readonly since: number | null;
  /** Exclusive, epoch ms. */
  readonly until: number | null;
}

export interface ReportRow {
  readonly status: RowStatus;
  readonly client: string;
  readonly clientKind: ClientKind;
  readonly userAgents: readonly string[];
  readonly operation: string;
  readonly entry: string;
  /** `METHOD /path` of the legacy route, when the entry is still in the mapping table. */
  readonly legacy: string | null;
  readonly calls: number;
  readonly firstSeen: string | null;
  readonly lastSeen: string | null;
  readonly outcomes: Readonly<Record<Outcome, number>>;
  readonly replacement: string | null;
  readonly deprecated: string;
  readonly removed: string;
}

export interface Series {
  readonly bucket: 'hour' | 'day';
  /** Start of each bucket, ISO 8601. */
  readonly buckets: readonly string[];
  /** Busiest operation first; `counts[i]` belongs to `buckets[i]`. */
  readonly operations: ReadonlyArray<{ readonly operation: string; readonly total: number; readonly counts: readonly number[] }>;
}

export interface Report {
  readonly release: string;
  readonly target: string;
  readonly generatedAt: string;
  readonly since: string | null;
  readonly until: string | null;
  /** Calls before this were archived (retention, docs/archive.md): the store's history starts here. Null while nothing was archived. */
  readonly historyBegins: string | null;
  readonly rows: readonly ReportRow[];
  readonly series: Series;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A handful is enough to recognise a script; a flood of forged agents must not grow a row without bound. */
export const MAX_USER_AGENTS = 10;
/** Beyond this many buckets the chart narrows to the span that actually has calls. */
export const MAX_BUCKETS = 2000;

const URGENCY: Record<RowStatus, number> = { 'broken now': 0, 'breaks at target': 1, deprecated: 2 };

export function clientOf(client: Call['client']): { name: string; kind: ClientKind } {
  if (client.account) return { name: client.account, kind: 'account' };
  if (client.clientId) return { name: client.clientId, kind: 'clientId' };
  return { name: client.address || 'unknown', kind: 'address' };
}

export function statusOf(removed: string, release: string, target: string): RowStatus {
  return statusOfEnd({ kind: 'release', release: removed }, { release, target, now: 0, calendar: null });
}

/**
 * The same rule as the gateway's own 410 (legacy/policy.ts): broken now when
 * past the end of its serving at the configured release and `now`; breaking
 * at the target when past it at the target release, or, for an end that is a
 * date, when the date comes by the target's date (or the calendar cannot
 * date the target: the date comes whatever the release).
 */
export function statusOfEnd(end: ServeEnd, at: { readonly release: string; readonly target: string; readonly now: number; readonly calendar: ReleaseCalendar | null }): RowStatus {
  if (isPastEnd(end, at.release, at.now)) return 'broken now';
  if (end.kind === 'release') return isPastEnd(end, at.target, at.now) ? 'breaks at target' : 'deprecated';
  const targetDate = at.calendar?.has(at.target) ? instantOf({ kind: 'release', release: at.target }, at.calendar) : null;
  return targetDate === null || end.at <= targetDate ? 'breaks at target' : 'deprecated';
}

/** Most urgent first; ties by calls (most first), then client and operation so the order is stable. */
export function compareRows(a: ReportRow, b: ReportRow): number {
  return URGENCY[a.status] - URGENCY[b.status] || b.calls - a.calls || byText(a.client, b.client) || byText(a.operation, b.operation) || byText(a.entry, b.entry);
}

/** Code-unit order: the same on every machine, whatever its locale. */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Hours when the span is under two days, else days. */
export function bucketFor(start: number, end: number): 'hour' | 'day' {
  return end - start < 2 * DAY ? 'hour' : 'day';
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const floorTo = (ms: number, size: number): number => Math.floor(ms / size) * size;

interface Acc {
  readonly client: string;
  readonly clientKind: ClientKind;
  readonly entry: string;
  operation: string;
  userAgents: Set<string>;
  calls: number;
  first: number | null;
  last: number | null;
  outcomes: Record<Outcome, number>;
  /** What the latest record said, for entries no longer in the mapping table. */
  recorded: { deprecated: string; removed: string; replacement: string | null };
}

/** Takes calls one at a time, so a large audit never has to sit in memory. */
export class ReportBuilder {
  private readonly rows = new Map<string, Acc>();
  /** operation → hour start → calls. */
  private readonly hours = new Map<string, Map<number, number>>();
  private readonly entries: ReadonlyMap<string, Entry>;
  private min: number | null = null;
  private max: number | null = null;

  constructor(private readonly options: ReportOptions) {
    this.entries = new Map(options.entries.map((e) => [e.id, e]));
  }

  add(call: Call): void {
    const { since, until } = this.options;
    if (since !== null || until !== null) {
      // A call without a time cannot be placed inside a requested range.
      if (call.time === null || (since !== null && call.time < since) || (until !== null && call.time >= until)) return;
    }
    const who = clientOf(call.client);
    const key = `${who.kind}\u0000${who.name}\u0000${call.entry}`;
    let acc = this.rows.get(key);
    if (!acc) {
      acc = { client: who.name, clientKind: who.kind, entry: call.entry, operation: call.operation, userAgents: new Set(), calls: 0, first: null, last: null, outcomes: { rewritten: 0, refused: 0, failed: 0 }, recorded: { deprecated: call.deprecated, removed: call.removed, replacement: call.replacement } };
      this.rows.set(key, acc);
    }
    acc.calls += 1;
    acc.outcomes[call.outcome] += 1;
    if (call.client.userAgent && acc.userAgents.size < MAX_USER_AGENTS) acc.userAgents.add(call.client.userAgent);
    if (call.time === null) return;
    if (acc.first === null || call.time < acc.first) acc.first = call.time;
    if (acc.last === null || call.time >= acc.last) {
      acc.last = call.time;
      acc.operation = call.operation;
      acc.recorded = { deprecated: call.deprecated, removed: call.removed, replacement: call.replacement };
    }
    if (this.min === null || call.time < this.min) this.min = call.time;
    if (this.max === null || call.time > this.max) this.max = call.time;
    let perHour = this.hours.get(call.operation);
    if (!perHour) this.hours.set(call.operation, (perHour = new Map()));
    const hour = floorTo(call.time, HOUR);
    perHour.set(hour, (perHour.get(hour) ?? 0) + 1);
  }

  /** `historyBegins`: epoch ms before which the audit records were archived, if any were. */
  finish(generatedAt: number, historyBegins: number | null = null): Report {
    const { release, target, since, until } = this.options;
    const rows = [...this.rows.values()].map((acc) => this.row(acc, generatedAt)).sort(compareRows);
    return { release, target, generatedAt: new Date(generatedAt).toISOString(), since: iso(since), until: iso(until), historyBegins: iso(historyBegins), rows, series: this.series() };
  }

  private row(acc: Acc, now: number): ReportRow {
    // The current table wins over what was recorded: a removal moved to a later release changes what breaks.
    const entry = this.entries.get(acc.entry);
    const deprecated = entry?.deprecated ?? acc.recorded.deprecated;
    const removed = entry?.removed ?? acc.recorded.removed;
    const replacement = entry ? (entry.replacement ? `${entry.replacement.method} ${entry.replacement.path}` : null) : acc.recorded.replacement;
    return {
      status: statusOfEnd((this.options.endOf ?? SCHEDULE)({ id: acc.entry, removed }), { release: this.options.release, target: this.options.target, now, calendar: this.options.calendar ?? null }),
      client: acc.client,
      clientKind: acc.clientKind,
      userAgents: [...acc.userAgents].sort(),
      operation: entry?.operation ?? acc.operation,
      entry: acc.entry,
      legacy: entry ? `${entry.legacy.method} ${entry.legacy.path}` : null,
      calls: acc.calls,
      firstSeen: iso(acc.first),
      lastSeen: iso(acc.last),
      outcomes: { ...acc.outcomes },
      replacement,
      deprecated,
      removed,
    };
  }

  private series(): Series {
    if (this.min === null || this.max === null) return { bucket: 'day', buckets: [], operations: [] };
    let start = this.options.since ?? this.min;
    let end = this.options.until ?? this.max + 1;
    let bucket = bucketFor(start, end);
    let size = bucket === 'hour' ? HOUR : DAY;
    if ((end - start) / size > MAX_BUCKETS) {
      // A wide requested range with calls in a corner of it: chart the calls, not years of zeros.
      start = Math.max(start, this.min);
      end = Math.min(end, this.max + 1);
      bucket = bucketFor(start, end);
      size = bucket === 'hour' ? HOUR : DAY;
    }
    const first = floorTo(start, size);
    const count = Math.max(1, Math.ceil((end - first) / size));
    const buckets = Array.from({ length: count }, (_, i) => new Date(first + i * size).toISOString());
    const operations = [...this.hours.entries()].map(([operation, perHour]) => {
      const counts = new Array<number>(count).fill(0);
      for (const [hour, n] of perHour) {
        const i = Math.floor((floorTo(hour, size) - first) / size);
        if (i >= 0 && i < count) counts[i]! += n;
      }
      return { operation, total: counts.reduce((a, b) => a + b, 0), counts };
    });
    operations.sort((a, b) => b.total - a.total || byText(a.operation, b.operation));
    return { bucket, buckets, operations };
  }
}

export function buildReport(calls: Iterable<Call>, options: ReportOptions, generatedAt: number): Report {
  const builder = new ReportBuilder(options);
  for (const call of calls) builder.add(call);
  return builder.finish(generatedAt);
}

export interface Summary {
  readonly clients: number;
  readonly operations: number;
  readonly calls: number;
  /** Clients with at least one operation that already answers 410. */
  readonly brokenNow: number;
  /** Clients with at least one operation removed after the current release and by the target (they may also be broken now). */
  readonly breaksAtTarget: number;
}

export function summarize(report: Report): Summary {
  const clientsWith = (status: RowStatus): number => new Set(report.rows.filter((r) => r.status === status).map((r) => `${r.clientKind}:${r.client}`)).size;
  return {
    clients: new Set(report.rows.map((r) => `${r.clientKind}:${r.client}`)).size,
    operations: new Set(report.rows.map((r) => r.operation)).size,
    calls: report.rows.reduce((n, r) => n + r.calls, 0),
    brokenNow: clientsWith('broken now'),
    breaksAtTarget: clientsWith('breaks at target'),
  };
}
