/**
 * The core as a real child process (for kill and restart tests): started with
 * its own environment, found by the port it logs, killed like a crash.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

export interface CoreProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** What the process wrote to standard output once it was listening. */
  readonly log: string[];
  /** The process's warning and error log lines since it listened (the last 200), for a failing test to show. */
  readonly problems: string[];
}

export function spawnCore(env: Record<string, string>): Promise<CoreProcess> {
  return spawnService('core/src/main.ts', { CORE_PORT: '0', ...env });
}

/** Any of the project's services (core or gateway) as a child process. */
export function spawnService(script: string, env: Record<string, string>): Promise<CoreProcess> {
  return spawnListening(process.execPath, ['--import', 'tsx', script], env);
}

/**
 * Runs a command that ends up as one of the project's services (directly,
 * or through `unshare`/`nsenter`) and answers once it logs its port.
 * `onExit` runs whenever the process exits, before or after listening.
 */
export function spawnListening(command: string, args: string[], env: Record<string, string>, onExit: () => void = () => undefined): Promise<CoreProcess> {
  return new Promise((resolve, reject) => {
    // MONGO_URL only when the test gives one (storeEnv() in ./stores.ts, a database of its own): the
    // run's own MONGO_URL names a shared database that no test may write into.
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'info', MONGO_URL: '', ...env } });
    let out = '';
    let err = '';
    const what = args[args.length - 1] ?? command;
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${out}${err}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout.removeAllListeners('data');
        const log: string[] = [];
        const problems: string[] = [];
        child.stdout.on('data', (more: Buffer) => {
          log.push(more.toString());
          for (const line of more.toString().split('\n')) if (/"level":"(warn|error)"/.test(line)) problems.push(line);
          if (problems.length > 200) problems.splice(0, problems.length - 200);
        });
        resolve({ child, url: `http://127.0.0.1:${m[1]}`, log, problems });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      onExit();
      reject(new Error(`${what} exited with ${code} before listening: ${out}${err}`));
    });
  });
}

/** True once the process has exited, by itself or by a signal (then `exitCode` stays null). */
function gone(p: CoreProcess): boolean {
  return p.child.exitCode !== null || p.child.signalCode !== null;
}

/** Kills the process the way a crash does (no cleanup) and waits for it to be gone. */
export function crash(core: CoreProcess): Promise<void> {
  return new Promise((resolve) => {
    if (gone(core)) return resolve();
    core.child.once('exit', () => resolve());
    core.child.kill('SIGKILL');
  });
}

/** Stops a process the clean way (SIGTERM) and waits for it to exit. */
export function stop(p: CoreProcess): Promise<void> {
  return new Promise((resolve) => {
    if (gone(p)) return resolve();
    p.child.once('exit', () => resolve());
    p.child.kill('SIGTERM');
  });
}
