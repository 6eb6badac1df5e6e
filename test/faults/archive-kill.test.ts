/**
 * The archiver killed with SIGKILL at random points, several times over, on a
 * store with a few thousand due documents, then run to completion: every
 * document is at every point in the store or the archive (both only within
 * the batch the killed run left), never twice in the archive; at the end all
 * due documents are archived, and restoring every file gives back documents
 * equal to the originals.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { archiveDir } from '../../kernel/archive/files.ts';
import { checkInvariant, runArchive, seedStore, storeContents } from '../core/archive/support.ts';
import { readManifest } from '../../kernel/archive/files.ts';
import { figure, tempDir } from './support.ts';

/** Changes whenever a batch of either group commits. */
async function lastBatches(dataDir: string): Promise<string> {
  const dir = archiveDir(dataDir);
  return `${(await readManifest(dir, 'jobs')).lastBatch}/${(await readManifest(dir, 'audit')).lastBatch}`;
}

test('an archiver killed at random points loses and doubles nothing, and a restore gives every document back', { timeout: 240_000 }, async () => {
  const data = tempDir('archive-kill');
  try {
    const seeded = await seedStore(data.path, { jobs: 800, tasksPerJob: 4, audit: 1200 });
    assert.equal(seeded.due.size, 800 * 5 + 600);
    // Small batches and a short lease: many crash windows, and a restarted run takes over quickly.
    const env = { DATA_DIR: data.path, RETENTION_BATCH_SIZE: '1', RETENTION_LEASE_MS: '1000' };
    let kills = 0;
    const progress: number[] = [];
    for (let round = 0; round < 6; round += 1) {
      // The kill lands at a random moment after the run's first committed batch (of either group).
      const before = await lastBatches(data.path);
      const result = await runArchive(['--older-than', '30d'], env, { when: async () => (await lastBatches(data.path)) !== before, afterMs: Math.floor(Math.random() * 400) });
      if (result.signal === 'SIGKILL') kills += 1;
      else assert.equal(result.code, 0, result.stderr);
      progress.push(await checkInvariant(data.path, seeded));
    }
    figure('archive kills', `${kills} of 6 runs killed mid-work; due documents archived after each: ${progress.join(', ')} of ${seeded.due.size}`);
    assert.ok(kills >= 3, `the archiver was killed only ${kills} times (runs finished too fast to test crashes)`);
    const final = await runArchive(['--older-than', '30d'], env);
    assert.equal(final.code, 0, final.stderr);
    assert.equal(await checkInvariant(data.path, seeded), seeded.due.size, `progress after each kill: ${progress.join(', ')}`);
    const store = await storeContents(data.path);
    for (const k of seeded.due.keys()) assert.ok(!store.has(k), `${k} still in the store after a complete run`);

    const files = readdirSync(archiveDir(data.path)).filter((f) => f.endsWith('.jsonl.gz'));
    const restored = await runArchive(files.flatMap((file) => ['--restore', `${archiveDir(data.path)}/${file}`]), env);
    assert.equal(restored.code, 0, restored.stderr);
    const back = await storeContents(data.path);
    assert.equal(back.size, seeded.due.size + seeded.kept.size);
    for (const [k, doc] of [...seeded.due, ...seeded.kept]) assert.deepEqual(back.get(k), doc, `${k} restored unequal`);
    assert.deepEqual(readdirSync(archiveDir(data.path)).filter((f) => f.endsWith('.jsonl.gz')), [], 'restored files are dropped from the archive');
  } finally {
    data.remove();
  }
});
