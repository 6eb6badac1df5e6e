/**
 * Stores full of documents due for the archive, and readers of what the
 * archive holds, for the archive tests. The documents are plain records in
 * the stored shapes; the archiver treats them as opaque JSON.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { archiveDir, readDocs, readManifest } from '../../../kernel/archive/files.ts';
import type { GroupName } from '../../../kernel/archive/files.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Doc, Store } from '../../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';
import { GATEWAY_COLLECTIONS } from '../../../gateway/src/audit/collection.ts';
import { eventually } from '../../helpers/wait.ts';

const DAY = 86_400_000;

function objectId(n: number): string {
  return n.toString(16).padStart(24, '0');
}

export interface Seeded {
  /** Every document that is due (older than 30 days and finished), by collection and id. */
  readonly due: Map<string, Doc>;
  /** Documents that must stay: recent, or not finished. */
  readonly kept: Map<string, Doc>;
}

const key = (collection: string, id: string): string => `${collection}/${id}`;

/**
 * `jobs` finished jobs between 35 and 95 days old, each with `tasksPerJob`
 * tasks; as many running or recent jobs that must stay; and `audit` audit
 * records (half due) in the gateway's store file.
 */
export async function seedStore(dataDir: string, counts: { jobs: number; tasksPerJob: number; audit: number }): Promise<Seeded> {
  const due = new Map<string, Doc>();
  const kept = new Map<string, Doc>();
  const now = Date.now();
  const core = SqliteStore.open({ dataDir, collections: CORE_COLLECTIONS });
  const jobs: Doc[] = [];
  const tasks: Doc[] = [];
  for (let i = 0; i < counts.jobs * 2; i += 1) {
    const old = i % 2 === 0;
    const end = old ? now - (35 + (i % 60)) * DAY - i * 1000 : now - (i % 20) * DAY;
    const status = old ? (i % 6 === 0 ? 'canceled' : 'complete') : (i % 4 === 1 ? 'running' : 'complete');
    const running = status === 'running';
    const id = objectId(0x100000 + i);
    // A running job that started long ago must stay too.
    const job: Doc = { _id: id, name: `job ${i}`, description: `job number ${i}`, status, variables: { n: i, nested: { list: [1, 'two', null] } }, metrics: running ? { start_time: end - 40 * DAY, user: 'u' } : { start_time: end - 3600_000, end_time: end, user: 'u' }, last_updated: new Date(end).toISOString(), _rev: 3 };
    jobs.push(job);
    (old ? due : kept).set(key('jobs', id), job);
    for (let t = 0; t < counts.tasksPerJob; t += 1) {
      const task: Doc = { _id: randomUUID(), name: `task ${t}`, status: 'complete', job: { _id: id, task: `t${t}`, name: job['name'] }, metrics: { start_time: end - 1000, end_time: end }, variables: { t } };
      tasks.push(task);
      (old ? due : kept).set(key('tasks', String(task['_id'])), task);
    }
  }
  await core.collection('jobs').insertMany(jobs);
  await core.collection('tasks').insertMany(tasks);
  await core.close();
  const gateway = SqliteStore.open({ dataDir, fileName: 'gateway.sqlite', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
  const records: Doc[] = [];
  for (let i = 0; i < counts.audit; i += 1) {
    const time = i % 2 === 0 ? now - (31 + (i % 50)) * DAY - i : now - (i % 25) * DAY;
    const record: Doc = { _id: randomUUID(), time, operation: 'getJob', entry: 'getJob', outcome: 'rewritten', status: 200, client: { account: 'a', address: '127.0.0.1' }, deprecated: '2021.1', removed: '2023.1', replacement: null };
    records.push(record);
    (i % 2 === 0 ? due : kept).set(key('audit', String(record['_id'])), record);
  }
  await gateway.collection('audit').insertMany(records);
  await gateway.close();
  return { due, kept };
}

/** Every document in the store, by collection and id (the store files closed again after). */
export async function storeContents(dataDir: string): Promise<Map<string, Doc>> {
  const out = new Map<string, Doc>();
  const read = async (store: Store, collection: 'jobs' | 'tasks' | 'audit'): Promise<void> => {
    const { docs } = await store.collection(collection).search({ where: null, sort: [], skip: 0, limit: 10_000_000 });
    for (const doc of docs) out.set(key(collection, String(doc['_id'])), doc);
  };
  const core = SqliteStore.open({ dataDir, collections: CORE_COLLECTIONS });
  await read(core, 'jobs');
  await read(core, 'tasks');
  await core.close();
  if (existsSync(`${dataDir}/gateway.sqlite`)) {
    const gateway = SqliteStore.open({ dataDir, fileName: 'gateway.sqlite', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
    await read(gateway, 'audit');
    await gateway.close();
  }
  return out;
}

/** Every document the archive holds, as a list (so a document archived twice shows twice), read through the manifests. */
export async function archiveContents(dataDir: string): Promise<Array<{ key: string; doc: Doc; file: string }>> {
  const dir = archiveDir(dataDir);
  const out: Array<{ key: string; doc: Doc; file: string }> = [];
  for (const group of ['jobs', 'audit'] as GroupName[]) {
    const manifest = await readManifest(dir, group);
    for (const [name, entry] of Object.entries(manifest.files)) {
      const docs = await readDocs(dir, name, entry);
      if (docs.length !== entry.count) throw new Error(`${name}: ${docs.length} documents, the manifest says ${entry.count}`);
      for (const doc of docs) out.push({ key: key(entry.kind, String(doc['_id'])), doc: doc as Doc, file: name });
    }
  }
  return out;
}

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `npm run archive` (the script itself) as a child. `kill`: SIGKILL
 * `afterMs` after `when()` first answers true (polled every 10 ms), so the
 * kill lands in the work however long the start took on a loaded machine.
 */
export function runArchive(args: string[], env: Record<string, string>, kill?: { when: () => Promise<boolean>; afterMs: number }): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/archive.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn', MONGO_URL: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    let exited = false;
    if (kill) {
      void (async () => {
        // Polled: the moment is in what the child writes to the store, which it does not announce.
        const due = await eventually(async () => exited || (await kill.when()), { timeoutMs: 120_000 }).catch(() => false);
        if (due) setTimeout(() => exited || child.kill('SIGKILL'), kill.afterMs);
      })();
    }
    child.on('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The ids of the batches a killed archiver left unfinished (from the lease documents), by collection and id. */
export async function pendingKeys(dataDir: string): Promise<Set<string>> {
  const out = new Set<string>();
  const add = async (store: Store, group: GroupName): Promise<void> => {
    const state = await store.collection('archive_state').findById(group);
    const pending = state?.['pending'] as { ids: Record<string, string[]> } | null | undefined;
    for (const [kind, ids] of Object.entries(pending?.ids ?? {})) for (const id of ids) out.add(key(kind, id));
  };
  const core = SqliteStore.open({ dataDir, collections: CORE_COLLECTIONS });
  await add(core, 'jobs');
  await core.close();
  const gateway = SqliteStore.open({ dataDir, fileName: 'gateway.sqlite', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
  await add(gateway, 'audit');
  await gateway.close();
  return out;
}

/**
 * The archive's promise, checked between runs: no document twice in the
 * archive, no document in neither place, documents that must stay never
 * archived; a document in both places only if it belongs to the batch a
 * killed archiver left (whose deletes the next run finishes).
 * Answers how many due documents are archived.
 */
export async function checkInvariant(dataDir: string, seeded: Seeded): Promise<number> {
  const store = await storeContents(dataDir);
  const archive = await archiveContents(dataDir);
  const pending = await pendingKeys(dataDir);
  const archived = new Map<string, Doc>();
  const problems: string[] = [];
  for (const { key: k, doc, file } of archive) {
    if (archived.has(k)) problems.push(`${k} archived twice (again in ${file})`);
    archived.set(k, doc);
    if (seeded.kept.has(k)) problems.push(`${k} archived but not due`);
  }
  for (const k of seeded.due.keys()) {
    const inStore = store.has(k);
    const inArchive = archived.has(k);
    if (!inStore && !inArchive) problems.push(`${k} lost: in neither the store nor the archive`);
    if (inStore && inArchive && !pending.has(k)) problems.push(`${k} in both the store and the archive outside an unfinished batch`);
  }
  for (const k of seeded.kept.keys()) if (!store.has(k)) problems.push(`${k} should have stayed in the store`);
  if (problems.length > 0) throw new Error(`${problems.length} problems, first: ${problems.slice(0, 5).join('; ')}`);
  return [...seeded.due.keys()].filter((k) => archived.has(k)).length;
}
