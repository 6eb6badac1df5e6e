/**
 * How long storing the audit holds the gateway's event loop: the recorder
 * at a legacy call's rate (records journaled per turn, batches stored every
 * 0.1 s) on a real SQLite file, with the batches stored on the event loop
 * (as before) or by the writer thread, rounds alternating. Each chunk's
 * hand-over is timed as it runs on the loop (the insert itself on the loop,
 * the copy into a message with the thread), and the loop's delay is sampled
 * alongside. On a shared, saturated host the delay counts preemption too;
 * the chunk times are the audit's own.
 *
 *   tsx scripts/bench/audit-hold.ts [--rate 1600] [--seconds 15] [--rounds 2]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createLogger } from '../../kernel/logger.ts';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { AuditJournal } from '../../gateway/src/audit/journal.ts';
import type { JournaledRecord } from '../../gateway/src/audit/journal.ts';
import { AuditRecorder } from '../../gateway/src/audit/recorder.ts';
import { storeSink } from '../../gateway/src/audit/sink.ts';
import type { AuditSink } from '../../gateway/src/audit/sink.ts';
import { WriterThread } from '../../gateway/src/audit/writer-thread.ts';
import { GATEWAY_COLLECTIONS } from '../../gateway/src/audit/collection.ts';

const { values } = parseArgs({ options: { rate: { type: 'string', default: '1600' }, seconds: { type: 'string', default: '15' }, rounds: { type: 'string', default: '2' } } });
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const logger = createLogger({ level: 'error', service: 'bench', silent: true });
const FILE = 'gateway.sqlite';

/** Times each chunk's synchronous part, the part that holds the loop. */
function timed(sink: AuditSink, holds: number[]): AuditSink {
  return {
    chunk: sink.chunk,
    close: () => sink.close(),
    store(records: readonly JournaledRecord[]) {
      const start = performance.now();
      const done = sink.store(records);
      holds.push(performance.now() - start);
      return done;
    },
  };
}

const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function round(kind: 'event loop' | 'writer thread'): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'iap-audit-hold-'));
  const threaded = kind === 'writer thread';
  const store = SqliteStore.open({ dataDir: dir, fileName: FILE, countCacheEntries: 0, autoCheckpoint: !threaded, collections: GATEWAY_COLLECTIONS });
  const holds: number[] = [];
  const sink = timed(threaded ? new WriterThread({ dataDir: dir, fileName: FILE }) : storeSink(store), holds);
  const recorder = new AuditRecorder(store, logger, { journal: AuditJournal.open(join(dir, 'gateway-audit.jsonl')), sink });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const perTick = Math.max(1, Math.round(rate / 1000));
  let n = 0;
  const until = performance.now() + seconds * 1000;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      if (performance.now() > until) {
        clearInterval(tick);
        resolve();
        return;
      }
      for (let i = 0; i < perTick; i += 1) {
        n += 1;
        recorder.record({ time: Date.now(), operation: 'getJob', entry: 'workflow-engine.getJob', source: 'workflow-engine', client: { account: 'bench-admin', clientId: null, address: '127.0.0.1', userAgent: `autocannon ${n}` }, outcome: 'rewritten', status: 200, latencyMs: 1.2, deprecated: '2021.2', removed: '2022.2', replacement: 'GET /operations-manager/jobs/:id' });
      }
    }, 1);
  });
  delay.disable();
  await recorder.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  const over = (ms: number) => holds.filter((h) => h > ms).length;
  console.log(
    `${kind}: ${n} records; chunk hold p50 ${quantile(holds, 0.5).toFixed(3)} ms, p99 ${quantile(holds, 0.99).toFixed(2)} ms, max ${Math.max(0, ...holds).toFixed(2)} ms, holds over 2 ms ${over(2)} of ${holds.length}; loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(2)} ms, max ${(delay.max / 1e6).toFixed(1)} ms`,
  );
}

for (let r = 0; r < rounds; r += 1) {
  await round('event loop');
  await round('writer thread');
}
