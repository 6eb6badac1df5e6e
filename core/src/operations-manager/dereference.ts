/**
 * Expands references in search and read results: a task's parent `job`; a
 * job's `groups`, `tasks` iterations, `output`, and `metrics.user` account.
 * Each reference is resolved with one batched lookup per page, never one per
 * document.
 */
import { isPlainObject, ValidationError } from '../../../kernel/index.ts';
import type { Doc, DocType, Store } from '../../../kernel/index.ts';
import { shownJob } from '../jobs/document.ts';

/**
 * What one page may expand: a task page copies each task's whole job into it, so the answer grows with the number
 * of tasks times the size of their jobs, and a job page reads every task run its jobs list.
 */
export interface DereferenceLimits {
  /** `search.maxDereferenceMb`, in bytes. */
  readonly maxJobBytes: number;
  /** `search.maxDereferenceTasks`. */
  readonly maxTasks: number;
}

type Resolver = (docs: Doc[], store: Store, limits: DereferenceLimits) => Promise<void>;

const MIB = 1024 * 1024;

function tooMuch(message: string): ValidationError {
  return new ValidationError(`Invalid search: ${message}`, [{ parameter: 'dereference', message }]);
}

function strings(values: unknown[]): string[] {
  return [...new Set(values.filter((v): v is string => typeof v === 'string'))];
}

async function byId(store: Store, collection: 'jobs' | 'tasks' | 'groups' | 'accounts', ids: string[]): Promise<Map<string, Doc>> {
  const docs = await store.collection(collection).findByIds(ids);
  return new Map(docs.map((d) => [d['_id'] as string, d]));
}

/** Fields of an account that may be shown to anyone who can see the job. */
const PUBLIC_ACCOUNT_FIELDS = ['_id', 'username', 'firstname', 'email', 'provenance', 'inactive'] as const;

function publicAccount(account: Doc): Doc {
  const out: Doc = {};
  for (const key of PUBLIC_ACCOUNT_FIELDS) if (key in account) out[key] = account[key];
  return out;
}

const resolvers: Record<string, Resolver> = {
  async job(docs, store, limits) {
    const jobs = await byId(store, 'jobs', strings(docs.map((d) => (isPlainObject(d['job']) ? d['job']['_id'] : undefined))));
    // Each job shown once and measured once; the page is measured before anything is copied into it.
    const shown = new Map<string, { doc: Doc; bytes: number }>();
    let bytes = 0;
    const jobOf = (d: Doc): { doc: Doc; bytes: number } | undefined => {
      const ref = d['job'];
      const id = isPlainObject(ref) && typeof ref['_id'] === 'string' ? ref['_id'] : undefined;
      const job = id === undefined ? undefined : jobs.get(id);
      if (id === undefined || !job) return undefined;
      let entry = shown.get(id);
      if (!entry) {
        const doc = shownJob(job);
        entry = { doc, bytes: Buffer.byteLength(JSON.stringify(doc)) };
        shown.set(id, entry);
      }
      return entry;
    };
    // Stops measuring at the first job past the bound: measuring is serialising, the very work being bounded.
    for (const d of docs) {
      bytes += jobOf(d)?.bytes ?? 0;
      if (bytes > limits.maxJobBytes) {
        throw tooMuch(`dereference=job would copy more than ${(bytes / MIB).toFixed(1)} MiB of jobs into this page, past the ${(limits.maxJobBytes / MIB).toFixed(0)} MiB one page may carry; ask for fewer tasks (limit)`);
      }
    }
    for (const d of docs) {
      const job = jobOf(d);
      if (job) d['job'] = job.doc;
    }
  },
  async groups(docs, store) {
    const groups = await byId(store, 'groups', strings(docs.flatMap((d) => (Array.isArray(d['groups']) ? d['groups'] : []))));
    for (const d of docs) {
      if (Array.isArray(d['groups'])) d['groups'] = d['groups'].map((g: unknown) => (typeof g === 'string' && groups.get(g)) || g);
    }
  },
  async tasks(docs, store, limits) {
    const ids: unknown[] = [];
    for (const d of docs) {
      if (!isPlainObject(d['tasks'])) continue;
      for (const entry of Object.values(d['tasks'])) if (isPlainObject(entry) && Array.isArray(entry['iterations'])) ids.push(...entry['iterations']);
    }
    const wanted = strings(ids);
    if (wanted.length > limits.maxTasks) {
      throw tooMuch(`dereference=tasks would read ${wanted.length} task runs for this page, past the ${limits.maxTasks} one page may read; ask for fewer jobs (limit)`);
    }
    const tasks = await byId(store, 'tasks', wanted);
    for (const d of docs) {
      if (!isPlainObject(d['tasks'])) continue;
      for (const entry of Object.values(d['tasks'])) {
        if (isPlainObject(entry) && Array.isArray(entry['iterations'])) {
          entry['iterations'] = entry['iterations'].map((id: unknown) => (typeof id === 'string' && tasks.get(id)) || id);
        }
      }
    }
  },
  async output(docs) {
    for (const d of docs) if (!('output' in d) || d['output'] === undefined) d['output'] = null;
  },
  async 'accounts.metrics.user'(docs, store) {
    const accounts = await byId(store, 'accounts', strings(docs.map((d) => (isPlainObject(d['metrics']) ? d['metrics']['user'] : undefined))));
    for (const d of docs) {
      const metrics = d['metrics'];
      if (!isPlainObject(metrics) || typeof metrics['user'] !== 'string') continue;
      const account = accounts.get(metrics['user']);
      if (account) metrics['user'] = publicAccount(account);
    }
  },
};

/**
 * Hides dereference-only properties that were not asked for, then expands
 * the requested references in place.
 */
export async function dereference(type: DocType, docs: Doc[], names: readonly string[], store: Store, limits: DereferenceLimits): Promise<void> {
  for (const hidden of type.dereferenceOnly) {
    if (names.includes(hidden)) continue;
    for (const d of docs) delete d[hidden];
  }
  for (const internal of type.internal) for (const d of docs) delete d[internal];
  for (const name of names) {
    const resolve = resolvers[name];
    if (!resolve) throw new Error(`no resolver for dereference ${name}`);
    await resolve(docs, store, limits);
  }
}
