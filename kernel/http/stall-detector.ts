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
 * imports nothing of either's domain. What it notes and counts belongs to
 * one detector, made by the service and passed to `listen()` (which notes
 * the requests) and to its metrics (which read `count()`), so two servers in
 * one process (the tests) never name each other's requests.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
// Imported, not the global: Node's global `performance` is a getter, read again on every use.
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger.ts';

/**
 * One request noted, linked into the detector's list of those in flight. A
 * list rather than a Set: a Set hashes every object it holds, and that was
 * measurable on a request that costs the gateway a tenth of a millisecond.
 */
class Noted {
  prev: Noted | null = null;
  next: Noted | null = null;
  readonly startedAt = performance.now();
  endedAt = Number.NaN;

  constructor(
    readonly requestId: string,
    /** The request line's method and target as they came; only a stall makes a route of them (`routeOf`). */
    readonly method: string | undefined,
    readonly url: string | undefined,
  ) {}
}

/** The last requests answered that a detector keeps, so a stall can name one that ended while it lasted. */
const ENDED_KEPT = 16;

/** Method and path; never the query string, which may carry a token. */
function routeOf(noted: Noted): string {
  const url = noted.url ?? '/';
  const q = url.indexOf('?');
  return `${noted.method ?? 'GET'} ${q === -1 ? url : url.slice(0, q)}`;
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

/** What `listen()` needs: somewhere to note each request it starts. */
export interface RequestNotes {
  /** Notes a request as it starts; `requestId` is the one its handlers will use. */
  note(req: IncomingMessage, res: ServerResponse, requestId: string): void;
}

/** What a metrics registry needs: the number of stalls seen. */
export interface StallCount {
  count(): number;
}

export class StallDetector implements RequestNotes, StallCount {
  /** Requests not yet answered, oldest first. */
  private first: Noted | null = null;
  private last: Noted | null = null;
  /** The last requests answered, oldest first. */
  private readonly ended: Noted[] = [];
  private stalls = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: StallDetectorOptions) {}

  /** Stalls this detector has seen since it started. */
  count(): number {
    return this.stalls;
  }

  note(req: IncomingMessage, res: ServerResponse, requestId: string): void {
    // Nothing is built per request that only a stall reads: this runs for every request of both services.
    const noted = new Noted(requestId, req.method, req.url);
    noted.prev = this.last;
    if (this.last === null) this.first = noted;
    else this.last.next = noted;
    this.last = noted;
    // `close` comes once, after the answer or when the client is gone; `on` spares the wrapper `once` makes.
    res.on('close', () => this.answered(noted));
  }

  private answered(noted: Noted): void {
    noted.endedAt = performance.now();
    if (noted.prev === null) this.first = noted.next;
    else noted.prev.next = noted.next;
    if (noted.next === null) this.last = noted.prev;
    else noted.next.prev = noted.prev;
    noted.prev = noted.next = null;
    this.ended.push(noted);
    if (this.ended.length > ENDED_KEPT) this.ended.shift();
  }

  /** The requests that ran at some time since `from` (still running, or ended since), latest started first. */
  private runningDuring(from: number): Noted[] {
    const found = this.ended.filter((n) => n.endedAt >= from);
    for (let n = this.first; n !== null; n = n.next) found.push(n);
    return found.sort((a, b) => b.startedAt - a.startedAt);
  }

  start(): this {
    if (this.timer) return this;
    const { thresholdMs, intervalMs, logger } = this.options;
    let last = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      // The loop was free at `last`; the blocking began after it, so this is a lower bound of the stall.
      const stalledMs = now - last - intervalMs;
      const from = last;
      last = now;
      if (stalledMs <= thresholdMs) return;
      this.stalls += 1;
      const running = this.runningDuring(from);
      const [first] = running;
      const route = first ? routeOf(first) : null;
      logger.warn(`event loop stalled for ${Math.round(stalledMs)} ms${route ? ` during ${route}` : ' outside any request'}`, {
        stalledMs: Math.round(stalledMs),
        requestId: first?.requestId ?? null,
        route,
        // Other requests that were running too: one of them may be the cause.
        alsoRunning: running.slice(1, 6).map((n) => `${n.requestId} ${routeOf(n)}`),
        stalls: this.stalls,
      });
    }, intervalMs);
    // The detector must not keep a stopping process alive.
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
