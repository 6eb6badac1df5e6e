/**
 * `npm run archive` by hand: a dry run changes nothing, --only limits the
 * groups, --find reads an archived job and its tasks back through the
 * manifest, --restore puts a file back (skipping what a killed restore
 * already put back), and bad arguments get a usage error.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { test } from 'node:test';
import { archiveDir, readManifest } from '../../../kernel/archive/files.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Doc } from '../../../kernel/store/types.ts';
import { tempDir } from '../../faults/support.ts';
import { archiveContents, runArchive, seedStore, storeContents } from './support.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const byId = (a: Doc, b: Doc): number => String(a['_id']).localeCompare(String(b['_id']));

test('npm run archive: dry run, --only, --find and --restore', { timeout: 120_000 }, async () => {
  const data = tempDir('archive-cli');
  try {
    const seeded = await seedStore(data.path, { jobs: 40, tasksPerJob: 3, audit: 40 });
    const env = { DATA_DIR: data.path };

    const dry = await runArchive(['--older-than', '30d', '--dry-run'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /jobs: 40 finished jobs \(with their tasks\) older than .* would be archived/);
    assert.match(dry.stdout, /audit: 20 audit records older than .* would be archived/);
    assert.ok(!existsSync(archiveDir(data.path)));
    assert.equal((await storeContents(data.path)).size, seeded.due.size + seeded.kept.size);

    const jobsOnly = await runArchive(['--older-than', '30d', '--only', 'jobs'], env);
    assert.equal(jobsOnly.code, 0, jobsOnly.stderr);
    assert.match(jobsOnly.stdout, /jobs: archived 120 tasks, 40 jobs older than/);
    const archived = await archiveContents(data.path);
    assert.equal(archived.length, 160);
    assert.ok(archived.every((a) => !a.key.startsWith('audit/')), 'audit records stay with --only jobs');

    const jobKey = [...seeded.due.keys()].find((k) => k.startsWith('jobs/'))!;
    const jobId = jobKey.slice('jobs/'.length);
    const found = await runArchive(['--find', jobId], env);
    assert.equal(found.code, 0, found.stderr);
    const answer = JSON.parse(found.stdout) as { file: string; job: Doc; tasks: Doc[] };
    assert.deepEqual(answer.job, seeded.due.get(jobKey));
    const tasks = [...seeded.due.values()].filter((d) => (d['job'] as { _id?: string } | undefined)?._id === jobId).sort(byId);
    assert.equal(tasks.length, 3);
    assert.deepEqual(answer.tasks.sort(byId), tasks);
    const missing = await runArchive(['--find', 'ffffffffffffffffffffffff'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no archived job ffffffffffffffffffffffff/);

    // As if a restore had been killed after putting one document back: the rerun skips it.
    const manifest = await readManifest(archiveDir(data.path), 'jobs');
    const jobsFile = answer.file;
    assert.ok(manifest.files[jobsFile]);
    const core = SqliteStore.open({ dataDir: data.path, collections: CORE_COLLECTIONS });
    await core.collection('jobs').insertOne(answer.job);
    await core.close();
    const restored = await runArchive(['--restore', `${archiveDir(data.path)}/${jobsFile}`], env);
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, new RegExp(`restored ${manifest.files[jobsFile]!.count - 1} documents from .*\\(1 already in the store, skipped\\)`));
    const store = await storeContents(data.path);
    for (const { key, doc, file } of archived) if (file === jobsFile) assert.deepEqual(store.get(key), doc);
    assert.ok(!readdirSync(archiveDir(data.path)).includes(jobsFile), 'the restored file leaves the archive');
    assert.equal((await readManifest(archiveDir(data.path), 'jobs')).files[jobsFile], undefined);
    const again = await runArchive(['--restore', `${archiveDir(data.path)}/${jobsFile}`], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not in the archive manifest/);
  } finally {
    data.remove();
  }
});

test('npm run archive refuses bad arguments with a usage message', { timeout: 60_000 }, async () => {
  for (const args of [['--older-than', '30'], ['--only', 'tasks'], ['--find', 'x', '--restore', 'y'], ['--frobnicate']]) {
    const result = await runArchive(args, { DATA_DIR: '/nonexistent-archive-test' });
    assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, /^archive: .*\n\nusage: npm run archive/s);
  }
});
