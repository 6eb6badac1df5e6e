import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jobs as jobType } from '../../kernel/search/fields.ts';
import type { Condition } from '../../kernel/search/conditions.ts';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { openTestStore } from '../helpers/stores.ts';
import { generateJobBatches } from '../../core/src/seed/generate.ts';
import { seedStore } from '../../core/src/seed/seed.ts';
import type { SeedProgress } from '../../core/src/seed/seed.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';

const NOW = Date.UTC(2025, 5, 1);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('seeding an in-memory SQLite store stores every generated document', async (t) => {
  const store = await openTestStore();
  t.after(() => store.close());
  const progress: SeedProgress[] = [];
  const opts = { jobs: 500, seed: 11, tasksFraction: 0.2, batchSize: 200, now: NOW, onProgress: (p: SeedProgress) => progress.push(p) };
  const counts = await seedStore(store, opts);

  assert.equal(await store.collection('jobs').count(null), 500);
  assert.equal(counts.jobs.inserted, 500);
  assert.ok(counts.tasks.inserted > 100, `${counts.tasks.inserted} tasks`);
  assert.equal(await store.collection('tasks').count(null), counts.tasks.inserted);
  assert.equal(await store.collection('accounts').count(null), counts.accounts.inserted);
  assert.equal(await store.collection('groups').count(null), counts.groups.inserted);
  assert.equal(await store.collection('workflows').count(null), 8);
  assert.deepEqual(progress.map((p) => p.jobsDone), [200, 400, 500]);

  // What was stored is what the generator produces.
  const expected = generateJobBatches({ ...opts, batchSize: 500 }).next().value!;
  assert.deepEqual(await store.collection('jobs').findById(expected.jobs[123]!._id as string), expected.jobs[123]);
  const complete = expected.jobs.filter((j) => j['status'] === 'complete').length;
  const statusEq: Condition = { kind: 'compare', op: 'eq', field: jobType.fields.get('status')!, value: 'complete' };
  assert.equal(await store.collection('jobs').count(statusEq), complete);

  // The description text index finds the jobs whose description has the word.
  const upgrade = expected.jobs.filter((j) => /\bupgrade\b/i.test(j['description'] as string)).length;
  assert.ok(upgrade > 0 && upgrade < 50, `${upgrade} upgrade jobs`);
  const text: Condition = { kind: 'text', field: jobType.fields.get('description')!, query: { terms: ['upgrade'], phrases: [], excluded: [] } };
  assert.equal(await store.collection('jobs').count(text), upgrade);
});

test('seeding the same run again skips what is already there', async (t) => {
  const store = await openTestStore();
  t.after(() => store.close());
  const opts = { jobs: 120, seed: 5, tasksFraction: 0.5, batchSize: 50, now: NOW };
  const first = await seedStore(store, opts);
  const second = await seedStore(store, opts);
  assert.deepEqual(second.jobs, { inserted: 0, skipped: 120 });
  assert.deepEqual(second.tasks, { inserted: 0, skipped: first.tasks.inserted });
  assert.deepEqual(second.accounts, { inserted: 0, skipped: first.accounts.inserted });
  assert.equal(await store.collection('jobs').count(null), 120);
  // A different seed adds new jobs next to the old ones and reuses the directory.
  const third = await seedStore(store, { ...opts, seed: 6 });
  assert.deepEqual(third.jobs, { inserted: 120, skipped: 0 });
  assert.equal(third.groups.inserted, 0);
  assert.equal(await store.collection('jobs').count(null), 240);
});

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/seed.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the seed script refuses bad arguments with exit code 2 and the usage', () => {
  for (const args of [['--jobs', 'many'], ['--jobs', '-5'], ['--tasks-fraction', '2'], ['--bogus'], ['--now', 'yesterday'], ['extra']]) {
    const r = runCli(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /usage: npm run seed/);
  }
});

test('the seed script fills a store in --data-dir and prints a summary', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'seed-cli-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const r = runCli(['--jobs', '300', '--seed', '9', '--tasks-fraction', '0.5', '--data-dir', dir]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^seeded 300 jobs, \d+ tasks, 8 accounts, 6 groups, 8 workflows into sqlite in .+ in \d+\.\ds/);
  // --data-dir always means the embedded store (the script's contract), so the file is read back as one.
  const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
  t.after(() => store.close());
  assert.equal(await store.collection('jobs').count(null), 300);
});
