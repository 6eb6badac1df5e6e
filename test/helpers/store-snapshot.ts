/**
 * Every document of every collection, in a canonical form, so a test can
 * prove that a run of requests left the store exactly as it found it.
 */
import { CORE_COLLECTION_NAMES } from '../../core/src/store/collections.ts';
import type { Doc, Store } from '../../kernel/store/types.ts';

/** Collection name to `_id` to the document as canonical JSON. */
export type StoreSnapshot = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * Fields that change without anything being written on purpose. A login
 * session records its use (`lastUsed`, and the idle expiry `expiresAt` that
 * follows it) at most every 30 seconds on any authenticated request
 * (core/src/auth/sessions.ts): a test that sends requests for longer than
 * that sees them move although no request changed anything. A core's
 * cluster record is its heartbeat: `lastSeen` is rewritten every 30 seconds
 * and whenever the cluster's adapters are listed (GET
 * /ag-manager/getClusterAdapters, core/src/ag-manager/service.ts).
 */
const VOLATILE: Partial<Record<string, readonly string[]>> = {
  sessions: ['lastUsed', 'expiresAt'],
  cluster: ['lastSeen'],
};

/**
 * Collections a refused request writes on purpose: a failed login (a wrong
 * Basic password included) is counted in the store, and a lockout recorded,
 * so every core sees it (core/src/auth/login-limiter.ts).
 */
const COUNTS_REFUSALS: ReadonlySet<string> = new Set(['login_attempts']);

/** JSON with object keys sorted, so equal documents give equal text whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

async function allDocs(store: Store, name: string): Promise<Doc[]> {
  const collection = store.collection(name);
  const total = await collection.count(null);
  const { docs } = await collection.search({ where: null, sort: [], skip: 0, limit: total + 1 });
  return docs;
}

export async function snapshotStore(store: Store): Promise<StoreSnapshot> {
  const out = new Map<string, Map<string, string>>();
  for (const name of CORE_COLLECTION_NAMES) {
    if (COUNTS_REFUSALS.has(name)) continue;
    const docs = new Map<string, string>();
    for (const doc of await allDocs(store, name)) {
      const kept: Record<string, unknown> = { ...doc };
      for (const field of VOLATILE[name] ?? []) delete kept[field];
      docs.set(String(doc['_id']), canonical(kept));
    }
    out.set(name, docs);
  }
  return out;
}

/** What differs between two snapshots, one line per document: empty when they are identical. */
export function diffSnapshots(before: StoreSnapshot, after: StoreSnapshot): string[] {
  const lines: string[] = [];
  for (const name of CORE_COLLECTION_NAMES) {
    const a = before.get(name) ?? new Map<string, string>();
    const b = after.get(name) ?? new Map<string, string>();
    for (const [id, text] of b) {
      if (!a.has(id)) lines.push(`${name}: added ${id}: ${text.slice(0, 300)}`);
      else if (a.get(id) !== text) lines.push(`${name}: changed ${id}: ${a.get(id)!.slice(0, 300)} -> ${text.slice(0, 300)}`);
    }
    for (const id of a.keys()) if (!b.has(id)) lines.push(`${name}: removed ${id}`);
  }
  return lines;
}

export function documentCount(snapshot: StoreSnapshot): number {
  let n = 0;
  for (const docs of snapshot.values()) n += docs.size;
  return n;
}
