/**
 * Fills a store with generated data: the directory (accounts, groups,
 * workflows) first, then jobs and their task documents batch by batch.
 * Documents already present are skipped, so repeating a run does not fail.
 */
import { DuplicateKeyError } from '../../../kernel/index.ts';
import type { Doc, DocCollection, Store } from '../../../kernel/index.ts';
import { ACCOUNTS, GROUPS, JOBS, TASKS, WORKFLOWS } from '../store/collections.ts';
import { generateDirectory, generateJobBatches } from './generate.ts';

export interface SeedOptions {
  readonly jobs: number;
  readonly seed: number;
  /** Share of jobs (0..1) that also get task documents. */
  readonly tasksFraction: number;
  /** Jobs per insert; their task documents go in the same step. */
  readonly batchSize?: number;
  /** Reference time (epoch ms); defaults to now. */
  readonly now?: number;
  /** Called after each batch. */
  readonly onProgress?: (progress: SeedProgress) => void;
}

export interface SeedProgress {
  readonly jobsDone: number;
  readonly jobsTotal: number;
  readonly tasksInserted: number;
}

export interface InsertCounts {
  inserted: number;
  /** Already present (same `_id` or unique key). */
  skipped: number;
}

export interface SeedCounts {
  readonly accounts: InsertCounts;
  readonly groups: InsertCounts;
  readonly workflows: InsertCounts;
  readonly jobs: InsertCounts;
  readonly tasks: InsertCounts;
}

export const DEFAULT_BATCH_SIZE = 5000;

/** Inserts one by one, skipping duplicates; for the directory and for batches that collided. */
async function insertEach(coll: DocCollection, docs: readonly Doc[], counts: InsertCounts): Promise<void> {
  for (const doc of docs) {
    try {
      await coll.insertOne(doc);
      counts.inserted++;
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
      counts.skipped++;
    }
  }
}

/**
 * insertMany stores all or nothing, so one duplicate fails the whole batch;
 * only then does the batch go in document by document.
 */
async function insertBatch(coll: DocCollection, docs: readonly Doc[], counts: InsertCounts): Promise<void> {
  if (docs.length === 0) return;
  try {
    await coll.insertMany(docs);
    counts.inserted += docs.length;
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    await insertEach(coll, docs, counts);
  }
}

export async function seedStore(store: Store, opts: SeedOptions): Promise<SeedCounts> {
  const counts: SeedCounts = {
    accounts: { inserted: 0, skipped: 0 },
    groups: { inserted: 0, skipped: 0 },
    workflows: { inserted: 0, skipped: 0 },
    jobs: { inserted: 0, skipped: 0 },
    tasks: { inserted: 0, skipped: 0 },
  };
  const dir = generateDirectory();
  await insertEach(store.collection(GROUPS.name), dir.groups, counts.groups);
  await insertEach(store.collection(ACCOUNTS.name), dir.accounts, counts.accounts);
  await insertEach(store.collection(WORKFLOWS.name), dir.workflows, counts.workflows);

  const jobs = store.collection(JOBS.name);
  const tasks = store.collection(TASKS.name);
  let done = 0;
  const batches = generateJobBatches({
    jobs: opts.jobs,
    seed: opts.seed,
    batchSize: opts.batchSize ?? DEFAULT_BATCH_SIZE,
    tasksFraction: opts.tasksFraction,
    now: opts.now,
  });
  for (const batch of batches) {
    await insertBatch(jobs, batch.jobs, counts.jobs);
    await insertBatch(tasks, batch.tasks, counts.tasks);
    done += batch.jobs.length;
    opts.onProgress?.({ jobsDone: done, jobsTotal: opts.jobs, tasksInserted: counts.tasks.inserted });
  }
  return counts;
}
