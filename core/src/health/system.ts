/**
 * The host report of `GET /health/system`, in the real platform's shape:
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
