/**
 * The MongoDB store, chosen when the config has a `mongoUrl`. Documents keep
 * their string `_id`s, so data moves between this store and the embedded one
 * unchanged.
 */
import { MongoClient, MongoServerSelectionError } from 'mongodb';
import type { Db } from 'mongodb';
import { collectionSpec, COLLECTION_NAMES } from '../collections.ts';
import type { CollectionName } from '../collections.ts';
import type { Store, WriteOp } from '../types.ts';
import { MongoCollection } from './collection.ts';
import type { StoredDoc } from './collection.ts';
import { parseMongoUrl, redact, urlHasOption } from './url.ts';

/** Long enough for a healthy replica set election, short enough that a wrong URL fails at start. */
const SERVER_SELECTION_TIMEOUT_MS = 5_000;

export class MongoStore implements Store {
  readonly kind = 'mongodb' as const;
  private readonly collections = new Map<CollectionName, MongoCollection>();

  private constructor(private readonly client: MongoClient, db: Db) {
    for (const name of COLLECTION_NAMES) {
      this.collections.set(name, new MongoCollection(db.collection<StoredDoc>(name), collectionSpec(name)));
    }
  }

  static async connect(url: string): Promise<MongoStore> {
    const parts = parseMongoUrl(url);
    const fail = (what: string, err: unknown): Error => {
      const detail = err instanceof Error ? redact(err.message, parts) : 'unknown error';
      // The driver's error is not attached: its fields may quote the URL.
      return new Error(`MongoDB at ${parts.hosts} (database ${parts.database}) ${what}: ${detail}`);
    };
    let client: MongoClient;
    try {
      // An option given here would override the URL's, so the default applies only when the URL has none.
      client = new MongoClient(url, urlHasOption(parts, 'serverSelectionTimeoutMS') ? {} : { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS });
    } catch (err) {
      throw fail('has an invalid connection string', err);
    }
    try {
      await client.connect();
      const db = client.db(parts.database);
      await db.command({ ping: 1 });
      const store = new MongoStore(client, db);
      await store.prepareNewCollections(db);
      return store;
    } catch (err) {
      await client.close().catch(() => undefined);
      throw fail(err instanceof MongoServerSelectionError ? 'is not reachable' : 'could not be used', err);
    }
  }

  /**
   * A new or empty collection gets its declared indexes at once, as a new
   * SQLite table does; one holding data keeps what it has, and
   * POST /indexes/:collection builds the rest.
   */
  private async prepareNewCollections(db: Db): Promise<void> {
    const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    await Promise.all(
      COLLECTION_NAMES.map(async (name) => {
        const empty = !existing.has(name) || (await db.collection(name).estimatedDocumentCount()) === 0;
        if (empty) await this.collection(name).buildIndexes();
      }),
    );
  }

  collection(name: CollectionName): MongoCollection {
    return this.collections.get(name)!;
  }

  /**
   * One by one: multi-document transactions need a replica set, which a plain
   * server lacks. Callers put the deciding `replaceIfRev` first, so a lost
   * race writes nothing.
   */
  async batch(ops: readonly WriteOp[]): Promise<boolean> {
    for (const w of ops) {
      const c = this.collection(w.collection);
      if (w.op === 'insert') await c.insertOne(w.doc);
      else if (w.op === 'replace') await c.replaceOne(w.doc);
      else if (!(await c.replaceIfRev(w.doc, w.expectedRev))) return false;
    }
    return true;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
