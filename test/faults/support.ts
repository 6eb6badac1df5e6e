/**
 * What the fault tests share: throwaway data directories, calls that time
 * out instead of hanging and say how long they took, login, and figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditRecord } from '../../gateway/src/audit/recorder.ts';
import { eventually } from '../helpers/wait.ts';

export const ADMIN_PASSWORD = 'fault-suite-password';

/** A fresh directory under the system's temporary one; `remove()` deletes it. */
export function tempDir(name: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `iap-faults-${name}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface Timed {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly ms: number;
  /** 0 when no answer came (the request failed or timed out). */
  readonly status: number;
  readonly headers: Headers | null;
  readonly body: unknown;
  /** Why no answer came. */
  readonly error: string | null;
}

/** One call with a deadline: a hang becomes an `error`, never a stalled test. */
export async function timed(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Timed> {
  const { timeoutMs = 3000, ...rest } = init;
  const startedAt = performance.now();
  try {
    const res = await fetch(url, { ...rest, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Text stays text; the test judges it.
    }
    const endedAt = performance.now();
    return { startedAt, endedAt, ms: endedAt - startedAt, status: res.status, headers: res.headers, body, error: null };
  } catch (err) {
    const endedAt = performance.now();
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { startedAt, endedAt, ms: endedAt - startedAt, status: 0, headers: null, body: null, error: `${(err as Error).name}: ${(err as Error).message}${cause ? ` (${cause})` : ''}` };
  }
}

/** A token of the administrator, through whichever service `url` is. */
export async function login(url: string, password = ADMIN_PASSWORD): Promise<string> {
  const res = await timed(`${url}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user: { username: 'admin', password } }) });
  if (res.status !== 200 || typeof res.body !== 'string') throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)} ${res.error ?? ''}`);
  return res.body;
}

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Waits until `check()` holds, polling; throws after `ms`. (A real wait, where one is needed: timingSleep in ../helpers/wait.ts.) */
export async function waitUntil(check: () => boolean, ms: number, what: string): Promise<void> {
  await eventually(check, { timeoutMs: ms, everyMs: 5, what });
}

/** `n` loops calling `step` until `stop()` is called; a step that throws ends the run with that error. */
export function clients(n: number, step: (client: number, round: number) => Promise<void>): { stop(): Promise<void> } {
  let running = true;
  const loops = Array.from({ length: n }, async (_, client) => {
    for (let round = 0; running; round += 1) await step(client, round);
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Prints a figure for RELIABILITY.md; the test runner shows it beside the test. */
export function figure(name: string, value: string): void {
  console.log(`# figure ${name}: ${value}`);
}

/** One rewritten legacy getJob call's audit record, told apart by its user agent. */
export function auditCall(userAgent: string): AuditRecord {
  return {
    time: Date.now(),
    operation: 'getJob',
    entry: 'workflow-engine.getJob',
    source: 'workflow-engine',
    client: { account: 'admin', clientId: null, address: '127.0.0.1', userAgent },
    outcome: 'rewritten',
    status: 200,
    latencyMs: 2,
    deprecated: '2021.2',
    removed: '2022.2',
    replacement: 'GET /operations-manager/jobs/:id',
  };
}
