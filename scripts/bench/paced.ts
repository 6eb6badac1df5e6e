/**
 * An open-loop load at a fixed rate: requests are sent on a schedule whether
 * or not earlier ones have answered, so a slow path shows up as latency (as
 * it does for real clients) rather than as a politely lower request rate.
 * Latency is timed with sub-millisecond resolution from the scheduled send
 * to the end of the answer; autocannon reports whole milliseconds only.
 */
import { Agent, request } from 'node:http';
import { summarize } from './stats.ts';
import type { Summary } from './stats.ts';

export interface PacedResult extends Summary {
  readonly errors: number;
  /** Requests that could not be sent on time because the client fell behind. */
  readonly late: number;
}

/** A request other than a GET: its method and body (sent with the given headers). */
export interface PacedBody {
  readonly method: string;
  readonly body: string;
}

export async function paced(url: string, headers: Record<string, string>, rate: number, seconds: number, send: PacedBody | null = null): Promise<PacedResult> {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 128 });
  const samples: number[] = [];
  let errors = 0;
  let late = 0;
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const pending: Promise<void>[] = [];
  const fire = (due: number): Promise<void> =>
    new Promise((resolve) => {
      // Sent late (the client fell behind): timed from when it was due, so the wait counts. Sent early: from now.
      const from = Math.min(due, performance.now());
      const req = request({ host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: send?.method ?? 'GET', headers, agent }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300) samples.push(performance.now() - from);
          else errors += 1;
          resolve();
        });
      });
      req.on('error', () => {
        errors += 1;
        resolve();
      });
      req.end(send?.body);
    });
  for (let i = 0; i < total; i += 1) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    else if (wait < -5) late += 1;
    pending.push(fire(due));
  }
  await Promise.all(pending);
  agent.destroy();
  return { ...summarize(samples), errors, late };
}
