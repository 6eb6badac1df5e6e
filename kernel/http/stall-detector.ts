/**
 * Finds event-loop stalls: a timer that should fire every `intervalMs`
 * notices when it fires late, and a lateness over the threshold is one stall,
 * logged and counted. While the loop is blocked nothing else runs, so the
 * code that blocked it cannot be caught in the act; instead every request
 * the server starts is noted (listen.ts), and a stall names the requests
 * that were running while it lasted: those still in flight, and those that
 * ended after it began. The latest started is named first: usually the one
 * request there is, and the likely cause (though a request only waiting on
 * I/O is named too when a job blocked the loop meanwhile). With none, the
 * stall came from work outside requests (jobs, schedulers).
 *
 * Shared by the core and the gateway (both serve through listen.ts), so it
 * imports nothing of either's domain. The count lives here, for a metrics
 * module to read (`stallCount()`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.ts';

interface Noted {
  readonly requestId: string;
  /** Method and path; never the query string, which may carry a token. */
  readonly route: string;
  readonly startedAt: number;
  endedAt: number;
}

/** Requests not yet answered. */
const inFlight = new Set<Noted>();
/** The last requests answered, oldest first, so a stall can name one that ended while it lasted. */
const ENDED_KEPT = 16;
const ended: Noted[] = [];
let stalls = 0;

/** Stalls seen by this process since it started. */
export function stallCount(): number {
  return stalls;
}

function path(url: string | undefined): string {
  if (url === undefined) return '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Notes a request as it starts; `requestId` is the one its handlers will use. */
export function noteRequest(req: IncomingMessage, res: ServerResponse, requestId: string): void {
  const noted: Noted = { requestId, route: `${req.method ?? 'GET'} ${path(req.url)}`, startedAt: performance.now(), endedAt: Number.NaN };
  inFlight.add(noted);
  res.once('close', () => {
    noted.endedAt = performance.now();
    inFlight.delete(noted);
    ended.push(noted);
    if (ended.length > ENDED_KEPT) ended.shift();
  });
}

/** The requests that ran at some time since `from` (still running, or ended since), latest started first. */
function runningDuring(from: number): Noted[] {
  const found = [...inFlight, ...ended.filter((n) => n.endedAt >= from)];
  return found.sort((a, b) => b.startedAt - a.startedAt);
}

/**
 * How often the services' detectors check. Waking the process costs CPU
 * (about 1 ms a second at this rate, scripts/bench/stall-cost.ts), and a stall
 * is measured to within one interval: a 300 ms stall reads 250 to 300 ms.
 */
export const STALL_CHECK_MS = 50;

export interface StallDetectorOptions {
  /** A lateness of the timer above this is a stall. */
  readonly thresholdMs: number;
  /** How often the timer is due; a stall is measured to within this. */
  readonly intervalMs: number;
  readonly logger: Logger;
}

export interface StallDetector {
  stop(): void;
}

export function startStallDetector(options: StallDetectorOptions): StallDetector {
  const { thresholdMs, intervalMs, logger } = options;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    // The loop was free at `last`; the blocking began after it, so this is a lower bound of the stall.
    const stalledMs = now - last - intervalMs;
    const from = last;
    last = now;
    if (stalledMs <= thresholdMs) return;
    stalls += 1;
    const running = runningDuring(from);
    const [first] = running;
    logger.warn(`event loop stalled for ${Math.round(stalledMs)} ms${first ? ` during ${first.route}` : ' outside any request'}`, {
      stalledMs: Math.round(stalledMs),
      requestId: first?.requestId ?? null,
      route: first?.route ?? null,
      // Other requests that were running too: one of them may be the cause.
      alsoRunning: running.slice(1, 6).map((n) => `${n.requestId} ${n.route}`),
      stalls,
    });
  }, intervalMs);
  // The detector must not keep a stopping process alive.
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
