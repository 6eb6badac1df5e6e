/** Runs a project process (seed, core) as a child and reads what it reports. */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export function runToEnd(args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

export interface Started {
  readonly child: ChildProcess;
  readonly port: number;
}

/**
 * Starts a service and waits for its "listening" log line, which carries the port. With `cpus` (a `taskset` list,
 * `"1"`), every thread of the service runs only there; `taskset` execs Node, so the child's pid is the service's.
 * `nodeArgs` go to Node itself (`--cpu-prof`, which NODE_OPTIONS may not carry).
 */
export function startService(script: string, env: Record<string, string>, cpus: string | null = null, nodeArgs: readonly string[] = []): Promise<Started> {
  return new Promise((resolve, reject) => {
    const node = [process.execPath, ...nodeArgs, '--import', 'tsx', script];
    const [command, ...args] = cpus === null ? node : ['taskset', '-c', cpus, ...node];
    const child = spawn(command!, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const match = /listening on port (\d+)/.exec(buffer);
      if (match) {
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve({ child, port: Number(match[1]) });
      }
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code} before listening`)));
  });
}

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 'NaN');
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/** Logs in over HTTP and answers the token. */
export async function login(baseUrl: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username, password } }) });
  if (res.status !== 200) throw new Error(`login as ${username} failed with ${res.status}`);
  return (await res.json()) as string;
}

/**
 * CPU time every thread of a process has run so far, in nanoseconds (Linux `/proc/<pid>/task/<tid>/schedstat`):
 * finer than `cpuMicrosOf`'s clock ticks (10 ms), for windows of a second or two. Threads that have ended are missed,
 * so read it around windows in which a process starts and ends none.
 */
export function cpuNanosOf(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return total;
}

/**
 * The CPUs this process may run on, as a `taskset` list, or null where `taskset` cannot be run; `pinTo` moves
 * every thread of it there.
 */
export function cpusOfSelf(): string | null {
  try {
    return /list: (\S+)/.exec(execFileSync('taskset', ['-a', '-cp', String(process.pid)], { encoding: 'utf8' }))?.[1] ?? null;
  } catch {
    return null;
  }
}

export function pinTo(cpus: string): void {
  execFileSync('taskset', ['-a', '-cp', cpus, String(process.pid)], { stdio: 'ignore' });
}

const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** CPU time (user and system) a process has used so far, in microseconds (Linux /proc). */
export function cpuMicrosOf(pid: number): number {
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
}
