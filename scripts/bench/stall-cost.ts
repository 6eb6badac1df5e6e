/**
 * What the stall detector costs: noting a request (listen.ts does it for
 * every request: an id, a set entry, a 'close' listener) in nanoseconds, and
 * the detector's timer in CPU time per second of an idle process.
 *
 *   tsx scripts/bench/stall-cost.ts
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIdOf } from '../../kernel/http/request-context.ts';
import { STALL_CHECK_MS, StallDetector } from '../../kernel/http/stall-detector.ts';
import { createLogger } from '../../kernel/logger.ts';

// Made before any measuring: loading winston's formats is no part of the detector's running cost.
const logger = createLogger({ level: 'error', service: 'bench', silent: true });
const idle = async (withDetector: boolean): Promise<number> => {
  const detector = withDetector ? new StallDetector({ thresholdMs: 200, intervalMs: STALL_CHECK_MS, logger }).start() : null;
  const keep = setInterval(() => undefined, 1000);
  // A second to settle.
  await new Promise((r) => setTimeout(r, 1000));
  const cpu = process.cpuUsage();
  await new Promise((r) => setTimeout(r, 5000));
  const used = process.cpuUsage(cpu);
  clearInterval(keep);
  detector?.stop();
  return (used.user + used.system) / 1000 / 5;
};
// Idle first, before the loop below leaves garbage for the collector to work on. Runs alternate, and
// medians are kept: one run in the first seconds of a process can read ten times the others, either way.
const runs: Record<'with' | 'without', number[]> = { with: [], without: [] };
for (let i = 0; i < 3; i += 1) {
  runs.without.push(await idle(false));
  runs.with.push(await idle(true));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`idle process, CPU per second (median of 3 × 5 s): ${median(runs.without).toFixed(2)} ms without the detector, ${median(runs.with).toFixed(2)} ms with it`);

const N = 200_000;
const noting = new StallDetector({ thresholdMs: 200, intervalMs: STALL_CHECK_MS, logger });
function perRequest(note: boolean, header: string | undefined): number {
  const started = performance.now();
  for (let i = 0; i < N; i += 1) {
    const req = { method: 'GET', url: '/operations-manager/jobs?limit=1', headers: { 'x-request-id': header } } as unknown as IncomingMessage;
    const res = new EventEmitter() as unknown as ServerResponse;
    if (note) {
      const id = requestIdOf(req.headers['x-request-id']);
      req.headers['x-request-id'] = id;
      noting.note(req, res, id);
    }
    res.emit('close');
  }
  return ((performance.now() - started) * 1e6) / N;
}

for (const [label, header] of [['caller sends an id', 'abc-123'], ['id made up', undefined]] as const) {
  const samples = [0, 1, 2, 3, 4].map(() => perRequest(true, header) - perRequest(false, header)).sort((a, b) => a - b);
  console.log(`noting a request (${label}): ${Math.round(samples[2]!)} ns (median of 5 × ${N})`);
}

