/**
 * The real core and gateway for the load run, as child processes on a fresh
 * embedded store. Each is started with Node's diagnostic report on SIGUSR2,
 * so its V8 heap can be read from outside without changing the service or
 * forcing a garbage collection (memory.ts).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { login, runToEnd } from '../bench/child.ts';

export const ADMIN = { username: 'load-admin', password: 'load-admin-password' } as const;

export interface Service {
  readonly name: 'core' | 'gateway';
  readonly child: ChildProcess;
  readonly url: string;
  /** Where the service writes its diagnostic reports. */
  readonly reportDir: string;
  /** Warning and error log lines seen since start (each is also shown). */
  readonly logged: { warn: number; error: number };
}

export interface Rig {
  readonly core: Service;
  readonly gateway: Service;
  readonly token: string;
  readonly dataDir: string;
  stop(): Promise<void>;
}

/** Lines Node prints around each diagnostic report; everything else on stderr is passed on. */
const REPORT_NOISE = /^(Writing Node\.js report to file: .*|Node\.js report completed)$/;

function eachLine(stream: Readable, onLine: (line: string) => void): void {
  let pending = '';
  stream.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop()!;
    for (const line of lines) onLine(line);
  });
}

/** Children being stopped on purpose, whose exit is not news. */
const stopping = new WeakSet<ChildProcess>();

function startService(name: Service['name'], script: string, env: Record<string, string>, reportDir: string): Promise<Service> {
  mkdirSync(reportDir, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        LOG_LEVEL: 'info',
        MONGO_URL: '',
        ...env,
        NODE_OPTIONS: `--report-on-signal --report-signal=SIGUSR2 --report-compact --report-directory=${reportDir}`,
      },
    });
    eachLine(child.stderr!, (line) => {
      if (line.trim() !== '' && !REPORT_NOISE.test(line)) process.stderr.write(`[${name}] ${line}\n`);
    });
    const logged = { warn: 0, error: 0 };
    let started = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start within 30 s`));
    }, 30_000);
    eachLine(child.stdout!, (line) => {
      const match = started ? null : /listening on port (\d+)/.exec(line);
      if (match) {
        started = true;
        clearTimeout(timer);
        resolve({ name, child, url: `http://127.0.0.1:${match[1]}`, reportDir, logged });
      }
      // Warnings under load are worth seeing and counting; info lines are not.
      const level = /"level":"(warn|error)"/.exec(line)?.[1] as 'warn' | 'error' | undefined;
      if (!level) return;
      logged[level] += 1;
      if (logged[level] <= 20) process.stderr.write(`[${name}] ${line}\n`);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`${name} exited (${signal ?? code}) before listening`));
      else if (!stopping.has(child)) process.stderr.write(`[${name}] exited unexpectedly (${signal ?? code})\n`);
    });
  });
}

function stopService(service: Service): Promise<void> {
  return new Promise((resolve) => {
    if (service.child.exitCode !== null || service.child.signalCode !== null) return resolve();
    stopping.add(service.child);
    const timer = setTimeout(() => service.child.kill('SIGKILL'), 10_000);
    service.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    service.child.kill('SIGTERM');
  });
}

/** Seeds `jobs` jobs into `dataDir`, then starts the core on it and the gateway in front. */
export async function startRig(dataDir: string, jobs: number): Promise<Rig> {
  mkdirSync(dataDir, { recursive: true });
  await runToEnd(['scripts/seed.ts', '--jobs', String(jobs), '--tasks-fraction', '0.2', '--data-dir', dataDir], { LOG_LEVEL: 'warn', MONGO_URL: '' });
  const env = { DATA_DIR: dataDir, ADMIN_USERNAME: ADMIN.username, ADMIN_PASSWORD: ADMIN.password };
  const core = await startService('core', 'core/src/main.ts', { ...env, CORE_PORT: '0' }, join(dataDir, 'reports', 'core'));
  let gateway: Service;
  try {
    gateway = await startService('gateway', 'gateway/src/main.ts', { ...env, PORT: '0', CORE_URL: core.url }, join(dataDir, 'reports', 'gateway'));
  } catch (err) {
    await stopService(core);
    throw err;
  }
  const stop = async (): Promise<void> => {
    await stopService(gateway);
    await stopService(core);
  };
  try {
    const token = await login(core.url, ADMIN.username, ADMIN.password);
    return { core, gateway, token, dataDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
