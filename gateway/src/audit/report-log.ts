/**
 * Legacy calls read from an access log of JSON lines, so operators can see
 * what would break before the gateway is in front: each line
 * `{time?, method, path, status, client?}` is matched against the legacy
 * routes of the mapping table; lines that are not legacy calls are ignored.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { readDate, ValueError } from '../../../kernel/index.ts';
import type { Entry } from '../mapping/types.ts';
import type { Outcome } from './recorder.ts';
import type { Call } from './report.ts';

export type Matcher = (method: string, path: string) => Entry | null;

export type LogLine =
  | { readonly kind: 'call'; readonly call: Call }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'invalid'; readonly reason: string };

export interface LogSummary {
  readonly lines: number;
  readonly calls: number;
  readonly ignored: number;
  readonly invalid: number;
  /** The first few unreadable lines, `line N: reason`. */
  readonly problems: readonly string[];
}

const MAX_PROBLEMS = 5;

function routePattern(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  // As the gateway's router matches: case-insensitive, a trailing slash allowed.
  return new RegExp(`^${source}/?$`, 'i');
}

export function legacyMatcher(entries: readonly Entry[]): Matcher {
  const routes = entries.map((entry) => ({ entry, method: entry.legacy.method, pattern: routePattern(entry.legacy.path) }));
  return (method, path) => {
    const bare = path.split(/[?#]/, 1)[0]!;
    const upper = method.toUpperCase();
    return routes.find((r) => r.method === upper && r.pattern.test(bare))?.entry ?? null;
  };
}

/** How the old platform answered, in the audit's words. */
export function outcomeOfStatus(status: number): Outcome {
  if (status === 410) return 'refused';
  return status >= 400 ? 'failed' : 'rewritten';
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function clientOfLine(raw: unknown): Call['client'] | string {
  if (raw === undefined || raw === null) return { account: null, clientId: null, address: null, userAgent: null };
  // A bare string is whatever the log knows the caller by.
  if (typeof raw === 'string') return { account: null, clientId: text(raw), address: null, userAgent: null };
  if (typeof raw !== 'object' || Array.isArray(raw)) return 'client must be a string or an object';
  const c = raw as Record<string, unknown>;
  return { account: text(c['account']), clientId: text(c['clientId']), address: text(c['address']), userAgent: text(c['userAgent']) };
}

export function readLogLine(line: string, match: Matcher): LogLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { kind: 'invalid', reason: 'not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { kind: 'invalid', reason: 'not a JSON object' };
  const o = parsed as Record<string, unknown>;
  if (typeof o['method'] !== 'string' || typeof o['path'] !== 'string') return { kind: 'invalid', reason: 'method and path must be strings' };
  const entry = match(o['method'], o['path']);
  if (!entry) return { kind: 'ignored' };
  const status = o['status'];
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) return { kind: 'invalid', reason: 'status must be an HTTP status code' };
  let time: number | null = null;
  if (o['time'] !== undefined && o['time'] !== null) {
    try {
      time = readDate(o['time'] as string | number);
    } catch (err) {
      if (!(err instanceof ValueError)) throw err;
      return { kind: 'invalid', reason: `time ${err.message}` };
    }
  }
  const client = clientOfLine(o['client']);
  if (typeof client === 'string') return { kind: 'invalid', reason: client };
  return {
    kind: 'call',
    call: {
      time,
      operation: entry.operation,
      entry: entry.id,
      client,
      outcome: outcomeOfStatus(status),
      deprecated: entry.deprecated,
      removed: entry.removed,
      replacement: entry.replacement ? `${entry.replacement.method} ${entry.replacement.path}` : null,
    },
  };
}

/** Streams the file line by line, handing each legacy call to `onCall`. */
export async function eachLogCall(file: string, entries: readonly Entry[], onCall: (call: Call) => void): Promise<LogSummary> {
  const match = legacyMatcher(entries);
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  let calls = 0;
  let ignored = 0;
  let invalid = 0;
  const problems: string[] = [];
  for await (const raw of lines) {
    n += 1;
    if (raw.trim() === '') continue;
    const line = readLogLine(raw, match);
    if (line.kind === 'call') {
      calls += 1;
      onCall(line.call);
    } else if (line.kind === 'ignored') {
      ignored += 1;
    } else {
      invalid += 1;
      if (problems.length < MAX_PROBLEMS) problems.push(`line ${n}: ${line.reason}`);
    }
  }
  return { lines: n, calls, ignored, invalid, problems };
}
