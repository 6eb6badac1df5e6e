/**
 * Expands references in search and read results: a task's parent `job`; a
 * job's `groups`, `tasks` iterations, `output`, and `metrics.user` account.
 * Each reference is resolved with one batched lookup per page, never one per
 * document.
 */
import { isPlainObject } from '../../../kernel/index.ts';
import type { Doc, DocType, Store } from '../../../kernel/index.ts';
import { shownJob } from '../jobs/document.ts';

type Resolver = (docs: Doc[], store: Store) => Promise<void>;

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
  async job(docs, store) {
    const jobs = await byId(store, 'jobs', strings(docs.map((d) => (isPlainObject(d['job']) ? d['job']['_id'] : undefined))));
    for (const d of docs) {
      const ref = d['job'];
      const job = isPlainObject(ref) && typeof ref['_id'] === 'string' ? jobs.get(ref['_id']) : undefined;
      if (job) d['job'] = shownJob(job);
    }
  },
  async groups(docs, store) {
    const groups = await byId(store, 'groups', strings(docs.flatMap((d) => (Array.isArray(d['groups']) ? d['groups'] : []))));
    for (const d of docs) {
      if (Array.isArray(d['groups'])) d['groups'] = d['groups'].map((g: unknown) => (typeof g === 'string' && groups.get(g)) || g);
    }
  },
  async tasks(docs, store) {
    const ids: unknown[] = [];
    for (const d of docs) {
      if (!isPlainObject(d['tasks'])) continue;
      for (const entry of Object.values(d['tasks'])) if (isPlainObject(entry) && Array.isArray(entry['iterations'])) ids.push(...entry['iterations']);
    }
    const tasks = await byId(store, 'tasks', strings(ids));
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
export async function dereference(type: DocType, docs: Doc[], names: readonly string[], store: Store): Promise<void> {
  for (const hidden of type.dereferenceOnly) {
    if (names.includes(hidden)) continue;
    for (const d of docs) delete d[hidden];
  }
  for (const internal of type.internal) for (const d of docs) delete d[internal];
  for (const name of names) {
    const resolve = resolvers[name];
    if (!resolve) throw new Error(`no resolver for dereference ${name}`);
    await resolve(docs, store);
  }
}
