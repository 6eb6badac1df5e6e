/**
 * The host report of `GET /health/system`, in the real platform's shape
 * (and below, the process report `GET /health/server` adds to its own):
 * the operating system's architecture, release and uptime, its memory and
 * load, and each CPU with its cumulative times (all as Node's `os` module
 * reports them: bytes, seconds, milliseconds).
 */
import { arch, cpus, freemem, loadavg, release, totalmem, uptime } from 'node:os';

export interface CpuReport {
  readonly model: string;
  /** MHz. */
  readonly speed: number;
  /** Milliseconds spent in each mode since boot. */
  readonly times: { readonly user: number; readonly nice: number; readonly sys: number; readonly idle: number; readonly irq: number };
}

export interface SystemReport {
  readonly arch: string;
  /** The operating system's release (the kernel's on Linux), not the platform's: that is `/health/server`. */
  readonly release: string;
  /** Seconds since the host booted (`/health/server` reports the process's). */
  readonly uptime: number;
  readonly freemem: number;
  readonly totalmem: number;
  /** 1, 5 and 15 minute load averages (zeros on Windows). */
  readonly loadavg: readonly number[];
  readonly cpus: readonly CpuReport[];
}

export function systemReport(): SystemReport {
  return {
    arch: arch(),
    release: release(),
    uptime: Math.floor(uptime()),
    freemem: freemem(),
    totalmem: totalmem(),
    loadavg: loadavg(),
    cpus: cpus().map((c) => ({ model: c.model, speed: c.speed, times: { user: c.times.user, nice: c.times.nice, sys: c.times.sys, idle: c.times.idle, irq: c.times.irq } })),
  };
}

/** What `GET /health/server` adds in the platform's shape: this process as Node reports it. */
export interface ProcessReport {
  readonly arch: string;
  /** The operating system as Node names it (`linux`, `darwin`, `win32`). */
  readonly platform: string;
  /** Node and the libraries it is built with (`node`, `v8`, `openssl`, ...). */
  readonly versions: Readonly<Record<string, string>>;
  /** Bytes. */
  readonly memoryUsage: { readonly rss: number; readonly heapTotal: number; readonly heapUsed: number; readonly external: number; readonly arrayBuffers: number };
  /** Microseconds of CPU time since the process started. */
  readonly cpuUsage: { readonly user: number; readonly system: number };
  readonly pid: number;
}

export function processReport(): ProcessReport {
  const memory = process.memoryUsage();
  const cpu = process.cpuUsage();
  const versions: Record<string, string> = {};
  for (const [name, version] of Object.entries(process.versions)) if (typeof version === 'string') versions[name] = version;
  return {
    arch: process.arch,
    platform: process.platform,
    versions,
    memoryUsage: { rss: memory.rss, heapTotal: memory.heapTotal, heapUsed: memory.heapUsed, external: memory.external, arrayBuffers: memory.arrayBuffers },
    cpuUsage: { user: cpu.user, system: cpu.system },
    pid: process.pid,
  };
}
