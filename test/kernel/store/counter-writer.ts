/**
 * A writer process for the two-process counter test: random inserts, status,
 * name and start-time changes (single and batched) and deletes on the jobs of
 * a store another process writes at the same time.
 * Usage: counter-writer.ts <dataDir> <seed> <ops>
 */
import fc from 'fast-check';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Doc } from '../../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const [dir, seedText, opsText] = process.argv.slice(2) as [string, string, string];
const seed = Number(seedText);
const rand = fc.sample(fc.integer({ min: 0, max: 1_000_000 }), { seed, numRuns: Number(opsText) * 4 });
let r = 0;
const next = (n: number): number => rand[r++ % rand.length]! % n;
const STATUSES = ['running', 'complete', 'error', 'paused', 'canceled'];

const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
const jobs = store.collection('jobs');
for (let i = 0; i < Number(opsText); i += 1) {
  const ids = (await jobs.search({ where: null, sort: [], skip: next(90), limit: 5 })).docs;
  const pick = ids[next(Math.max(1, ids.length))];
  const kind = next(5);
  if (kind === 0 || !pick) {
    await jobs.insertOne({ _id: `w${seed}-${i}`, name: `wf ${next(4)}`, status: STATUSES[next(5)], metrics: { start_time: 1_790_000_000_000 + next(1_000_000) * 3_600 } });
  } else if (kind === 1) {
    await jobs.deleteOne(pick['_id'] as string);
  } else if (kind === 2) {
    await jobs.replaceOne({ ...pick, status: STATUSES[next(5)], metrics: { start_time: 1_790_000_000_000 + next(1_000_000) * 3_600 } });
  } else {
    const doc: Doc = { ...pick, status: STATUSES[next(5)], name: `wf ${next(4)}` };
    await store.batch([{ op: 'replaceIfRev', collection: 'jobs', doc, expectedRev: (pick['_rev'] as number | undefined) ?? null }]);
  }
}
await store.close();
