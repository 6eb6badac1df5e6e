/**
 * The only ways a test waits (test/README.md, "Waiting in a test"):
 *
 * - `eventually(check)`: polls until something becomes true, with a deadline.
 *   For things the code under test does not announce (a child process's
 *   output, a row another process writes). It proves a positive; it never
 *   proves that something did NOT happen.
 * - `nextTurn()`: one turn of the event loop, so callbacks already queued
 *   (an I/O completion, a `setImmediate` in the code) have run. A barrier,
 *   not a time.
 * - `timingSleep(ms, why)`: a real wait, for the tests that measure time
 *   (a stall detector, a timeout, latency under load, a fault that must
 *   last a while). `why` says why no hook can stand in for the clock.
 *
 * Everything else drives the code's own hooks: `Scheduler.tick()`,
 * `Engine.idle()`, an injected `now()`. `test/architecture/no-sleeps.test.ts`
 * refuses any other wait in `test/`.
 */

export interface EventuallyOptions {
  /** Give up after this long. Default 5 s. */
  readonly timeoutMs?: number;
  /** Pause between checks. Default 10 ms. */
  readonly everyMs?: number;
  /** Names the condition in the error when the deadline passes. */
  readonly what?: string;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` until it answers something other than null, undefined or
 * false, and answers that. Throws once `timeoutMs` has passed; an error
 * thrown by `check` ends the wait at once.
 */
export async function eventually<T>(check: () => T | null | undefined | false | Promise<T | null | undefined | false>, options: EventuallyOptions = {}): Promise<T> {
  const { timeoutMs = 5000, everyMs = 10, what = 'condition' } = options;
  const until = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined && value !== false) return value;
    if (performance.now() > until) throw new Error(`eventually: ${what} not reached within ${timeoutMs} ms`);
    await pause(everyMs);
  }
}

/** One turn of the event loop: what was queued before it (I/O callbacks, immediates) has run after it. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A real wait, for a test that measures time. `why` must say why: what in
 * the code runs on the wall clock and cannot be ticked.
 */
export function timingSleep(ms: number, why: string): Promise<void> {
  if (why.trim().length === 0) throw new Error('timingSleep: say why this test must wait in real time');
  return pause(ms);
}
