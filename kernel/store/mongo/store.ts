/**
 * The MongoDB store, chosen when the config has a `mongoUrl`. Documents keep
 * their string `_id`s, so data moves between this store and the embedded one
 * unchanged. Every multi-document change is one transaction, so the store
 * runs only on a replica set or a sharded cluster (a single-node replica set
 * is enough) and refuses to start on a standalone server (docs/deployment.md).
 */
import { MongoClient, MongoServerError, MongoServerSelectionError } from 'mongodb';
import type { ClientSession, Db, Document, MongoClientOptions } from 'mongodb';
import { checkedSpecs } from '../collections.ts';
import type { CollectionSpec } from '../collections.ts';
import type { Store, WriteOp } from '../types.ts';
import { MongoCollection } from './collection.ts';
import type { StoredDoc } from './collection.ts';
import { mongoStoreError } from './errors.ts';
import { parseMongoUrl, redact, urlHasOption } from './url.ts';

/** Long enough for a healthy replica set election, short enough that a wrong URL fails at start. */
const SERVER_SELECTION_TIMEOUT_MS = 5_000;

/** Aborts a batch's transaction when a revision check fails; never leaves the store. */
class RevisionMoved extends Error {}

/**
 * Why this server cannot hold the store, from its `hello` answer, or null
 * when it can: transactions need a replica set member (`setName`) or a
 * mongos (`msg: 'isdbgrid'`).
 */
export function transactionsUnsupported(hello: Document): string | null {
  if (typeof hello['setName'] === 'string' || hello['msg'] === 'isdbgrid') return null;
  return 'is a standalone server; the core needs a replica set because every job change is a multi-document transaction. A single-node replica set is enough: start mongod with --replSet rs0 and run rs.initiate() once (docs/deployment.md)';
}

/**
 * Driver options the store relies on, each only where the URL does not set
 * it (an option given here would override the URL's): writes acknowledged
 * by a majority, so a failover cannot roll back what a client was told is
 * done; majority reads, so no one reads what may be rolled back; and
 * transactions reading one snapshot.
 */
export function clientOptions(url: string): MongoClientOptions {
  const parts = parseMongoUrl(url);
  const has = (option: string) => urlHasOption(parts, option);
  return {
    ...(has('serverSelectionTimeoutMS') ? {} : { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS }),
    ...(has('w') ? {} : { writeConcern: { w: 'majority' } }),
    ...(has('readConcernLevel') ? {} : { readConcern: { level: 'majority' } }),
    ...(has('retryWrites') ? {} : { retryWrites: true }),
  };
}

export class MongoStore implements Store {
  readonly kind = 'mongodb' as const;
  private readonly collections = new Map<string, MongoCollection>();

  private constructor(private readonly client: MongoClient, private readonly db: Db, specs: readonly CollectionSpec[]) {
    const transact = <T>(fn: (session: ClientSession) => Promise<T>) => this.transact(fn);
    for (const spec of specs) {
      this.collections.set(spec.name, new MongoCollection(db.collection<StoredDoc>(spec.name), spec, transact));
    }
  }

  /** `collections`: the ones the service keeps (core/src/store/collections.ts, gateway/src/audit/collection.ts). */
  static async connect(url: string, collections: readonly CollectionSpec[]): Promise<MongoStore> {
    const specs = checkedSpecs(collections);
    const parts = parseMongoUrl(url);
    const fail = (what: string, err: unknown): Error => {
      const detail = err instanceof Error ? redact(err.message, parts) : 'unknown error';
      // The driver's error is not attached: its fields may quote the URL.
      return new Error(`MongoDB at ${parts.hosts} (database ${parts.database}) ${what}: ${detail}`);
    };
    let client: MongoClient;
    try {
      client = new MongoClient(url, clientOptions(url));
    } catch (err) {
      throw fail('has an invalid connection string', err);
    }
    try {
      await client.connect();
      const db = client.db(parts.database);
      const unsupported = transactionsUnsupported(await db.command({ hello: 1 }));
      if (unsupported) throw new Error(unsupported);
      const store = new MongoStore(client, db, specs);
      await store.prepareNewCollections();
      return store;
    } catch (err) {
      await client.close().catch(() => undefined);
      throw fail(err instanceof MongoServerSelectionError ? 'is not reachable' : 'could not be used', err);
    }
  }

  /**
   * A new or empty collection gets its declared indexes at once, as a new
   * SQLite table does; one holding data keeps what it has, and
   * POST /indexes/:collection builds the rest. Collections are created
   * first, one by one, because a transaction cannot create one on servers
   * before 4.4 and two cores starting together would race to.
   */
  private async prepareNewCollections(): Promise<void> {
    const existing = new Set((await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    const names = [...this.collections.keys()];
    for (const name of names) {
      if (existing.has(name)) continue;
      try {
        await this.db.createCollection(name);
      } catch (err) {
        // NamespaceExists: another core starting at the same time made it first.
        if (!(err instanceof MongoServerError && err.code === 48)) throw err;
      }
    }
    for (const name of names) {
      if ((await this.db.collection(name).estimatedDocumentCount()) > 0) continue;
      // A blocked index (a foreign text index) must not stop the start: the index status shows it missing.
      await this.collection(name).buildIndexes().catch((err: unknown) => {
        if ((err as { status?: unknown }).status !== 409) throw err;
      });
    }
  }

  collection(name: string): MongoCollection {
    const found = this.collections.get(name);
    if (!found) throw new Error(`collection ${name} is not declared by this store (declared: ${[...this.collections.keys()].join(', ')})`);
    return found;
  }

  /** One transaction with the driver's retries (TransientTransactionError, UnknownTransactionCommitResult). */
  private async transact<T>(fn: (session: ClientSession) => Promise<T>): Promise<T> {
    const session = this.client.startSession();
    try {
      return await session.withTransaction(fn, { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' }, readPreference: 'primary' });
    } finally {
      await session.endSession();
    }
  }

  /** All or nothing, in one transaction; a failed revision check aborts it. */
  async batch(ops: readonly WriteOp[]): Promise<boolean> {
    // Encoded (and size-checked) before the transaction: a document too large is refused with nothing begun.
    const stored = ops.map((w) => (w.op === 'setFields' || w.op === 'delete' ? null : this.collection(w.collection).toStored(w.doc)));
    let at = 0;
    try {
      await this.transact(async (session) => {
        for (let i = 0; i < ops.length; i += 1) {
          at = i;
          const w = ops[i]!;
          const c = this.collection(w.collection);
          if (w.op === 'insert') await c.insertIn(stored[i]!, session);
          else if (w.op === 'replace') await c.replaceIn(stored[i]!, session);
          else if (w.op === 'setFields') await c.setFieldsIn(w.where, w.fields, session);
          else if (w.op === 'delete') await c.deleteIn(w.id, session);
          else if (!(await c.replaceIfRevIn(stored[i]!, w.expectedRev, session))) throw new RevisionMoved();
        }
      });
      return true;
    } catch (err) {
      if (err instanceof RevisionMoved) return false;
      throw mongoStoreError(err, ops[at]?.collection ?? 'batch');
    }
  }

  async increment(collection: string, id: string, expiresAt: number, now: number): Promise<number> {
    // Plain field names only, so the codec's escaping never applies: what is read back is what was written.
    const coll = this.db.collection<{ _id: string; count: number; expiresAt: number }>(collection);
    try {
      await coll.deleteMany({ expiresAt: { $lte: now } });
      for (let attempt = 0; ; attempt += 1) {
        try {
          const after = await coll.findOneAndUpdate({ _id: id }, { $inc: { count: 1 }, $setOnInsert: { expiresAt } }, { upsert: true, returnDocument: 'after' });
          return after?.count ?? 1;
        } catch (err) {
          // Two upserts of a new counter at once: one inserts, the other finds a duplicate and counts on it.
          if (attempt > 0 || !(err instanceof MongoServerError) || err.code !== 11000) throw err;
        }
      }
    } catch (err) {
      throw mongoStoreError(err, collection);
    }
  }

  /** MongoDB keeps its own journal in bounds; a background writer never has to wait for it. */
  roomForBackgroundWrites(): boolean {
    return true;
  }

  /** The server runs every query; the core's event loop only waits for answers. */
  searchThread(): null {
    return null;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
