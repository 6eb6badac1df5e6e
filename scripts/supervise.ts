/**
 * Keeps one service of `npm start` running: a process that dies is started
 * again after a pause that doubles with each death in a row (0.5 s up to
 * 30 s), so a service that cannot start does not spin, and one that crashes
 * once comes back at once. A process that stayed up a minute counts as well
 * again: its next death waits the shortest pause.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

export interface Backoff {
  readonly firstMs: number;
  readonly maxMs: number;
  /** Up this long, a process's death starts the pauses again from the first. */
  readonly stableMs: number;
}

export const BACKOFF: Backoff = { firstMs: 500, maxMs: 30_000, stableMs: 60_000 };

/**
 * Node's flags for every service process, as `npm run start:core` and
 * `start:gateway` (package.json) give them too: without the `__proto__`
 * accessor a key of data can never swap an object's prototype, a second wall
 * behind code that keeps such keys as own data (docs/security.md).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--disable-proto=delete'];

/** The pause before restart number `restarts` (1 for the first in a row). */
export function pauseBefore(restarts: number, backoff: Backoff = BACKOFF): number {
  return Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(30, Math.max(0, restarts - 1)));
}

export interface Supervised {
  /** The running process, none while it waits to be restarted. */
  current(): ChildProcess | null;
  /** Stops restarting and ends the process: SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<void>;
}

export function supervise(script: string, log: (line: string) => void, backoff: Backoff = BACKOFF): Supervised {
  let child: ChildProcess | null = null;
  let stopping = false;
  let restarts = 0;
  let pending: NodeJS.Timeout | null = null;

  function start(): void {
    pending = null;
    const startedAt = Date.now();
    const proc = spawn(process.execPath, [...SERVICE_NODE_FLAGS, '--import', 'tsx', script], { stdio: 'inherit' });
    child = proc;
    log(`${script} started (pid ${proc.pid})`);
    proc.on('error', (err) => log(`${script} could not be started: ${err.message}`));
    proc.on('exit', (code, signal) => {
      child = null;
      if (stopping) return;
      restarts = Date.now() - startedAt >= backoff.stableMs ? 1 : restarts + 1;
      const pause = pauseBefore(restarts, backoff);
      log(`${script} stopped (${signal ?? `exit ${code}`}); starting it again in ${pause / 1000} s (restart ${restarts} in a row)`);
      pending = setTimeout(start, pause);
    });
  }

  start();
  return {
    current: () => child,
    stop(graceMs) {
      stopping = true;
      if (pending) clearTimeout(pending);
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        const kill = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.kill('SIGTERM');
      });
    },
  };
}
