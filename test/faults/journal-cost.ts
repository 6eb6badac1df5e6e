/**
 * What the audit journal costs a legacy call: records appended the way the
 * recorder appends them (one write each, a new segment and the stored one deleted after every 500), against
 * the same records recorded without a journal. Not a test; run it with
 * `node --import tsx test/faults/journal-cost.ts [records]`.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { AuditJournal } from '../../gateway/src/audit/journal.ts';
import { tempDir } from './support.ts';

const records = Number(process.argv[2] ?? 100_000);
const data = tempDir('journal-cost');
const record = (i: number) => ({
  _id: randomUUID(),
  time: Date.now(),
  operation: 'getJob',
  entry: 'workflow-engine.getJob',
  source: 'workflow-engine',
  client: { account: 'nightly-cleanup', clientId: null, address: '10.20.0.7', userAgent: `python-requests/2.31 #${i}` },
  outcome: 'rewritten',
  status: 200,
  latencyMs: 3,
  deprecated: '2021.2',
  removed: '2022.2',
  replacement: 'GET /operations-manager/jobs/:id',
});

function run(journal: AuditJournal | null): number {
  let waiting = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < records; i += 1) {
    journal?.append([record(i)]);
    waiting += 1;
    // As the recorder does: a new segment when a batch is stored, the stored one deleted.
    if (waiting === 500) {
      journal?.rotate();
      journal?.committed(waiting);
      waiting = 0;
    }
  }
  return Number(process.hrtime.bigint() - started) / 1000 / records;
}

try {
  run(AuditJournal.open(join(data.path, 'warm.jsonl')));
  const without = run(null);
  const journal = AuditJournal.open(join(data.path, 'gateway-audit.jsonl'));
  const withJournal = run(journal);
  journal.close();
  const line = Buffer.byteLength(`${JSON.stringify(record(0))}\n`);
  console.log(`${records} records of ${line} bytes: ${withJournal.toFixed(2)} µs each with the journal, ${without.toFixed(2)} µs without: the journal costs ${(withJournal - without).toFixed(2)} µs a call`);
} finally {
  data.remove();
}
