/**
 * One MongoDB collection behind the DocCollection interface. Behaviour follows
 * the SQLite store: `_id` is the string the document carries, documents are
 * stored and returned as plain JSON (keys MongoDB cannot hold as they are are
 * escaped, ./codec.ts), a multi-document write is one transaction, and every
 * server failure reaches callers as the error family's (./errors.ts).
 */
import { MongoServerError } from 'mongodb';
import type { ClientSession, Collection, Document, Filter } from 'mongodb';
import { ConflictError, PageTooLargeError } from '../../errors.ts';
import type { Condition } from '../../search/conditions.ts';
import { toMongoFilter, toMongoSort } from '../../search/to-mongo.ts';
import type { CollectionSpec } from '../collections.ts';
import { bsonSize } from '../limits.ts';
import { DuplicateKeyError } from '../types.ts';
import type { Doc, DocCollection, IndexStatus, JsonSearchResult, SearchQuery, SearchResult, SpanTotal } from '../types.ts';
import { spanPipeline } from './spans.ts';
import { applyProjection } from '../../search/projection.ts';
import { decodeDoc, encodeDoc } from './codec.ts';
import { mongoStoreError } from './errors.ts';
import { planIndexes, readListedIndex } from './indexes.ts';
import type { IndexPlan } from './indexes.ts';

export { duplicateKeyName } from './errors.ts';

/** Stored shape: any JSON object whose `_id` is a string. */
export type StoredDoc = Doc & { _id: string };

/** Reads give up after this long instead of holding a request forever. */
export const MAX_TIME_MS = 30_000;

const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;

/** Runs `fn` in a transaction, retried by the driver's rules; errors come back unmapped. */
export type Transact = <T>(fn: (session: ClientSession) => Promise<T>) => Promise<T>;

export class MongoCollection implements DocCollection {
  readonly name: string;

  constructor(private readonly coll: Collection<StoredDoc>, private readonly spec: CollectionSpec, private readonly transact: Transact) {
    this.name = spec.name;
  }

  /** Another process's writes cannot be seen without asking the server, so nothing read is kept. */
  changeMark(): null {
    return null;
  }

  toStored(doc: Doc): StoredDoc {
    const id = doc['_id'];
    if (typeof id !== 'string' || id.length === 0) throw new TypeError(`${this.name}: documents need a string _id`);
    return encodeDoc(this.name, doc) as StoredDoc;
  }

  private async mapped<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw mongoStoreError(err, this.name);
    }
  }

  // The *In methods are the writes a transaction is made of: they throw the
  // driver's errors unchanged, because the driver reads their labels to decide
  // whether to retry the transaction.
  async insertIn(stored: StoredDoc, session?: ClientSession): Promise<void> {
    await this.coll.insertOne(stored, { session });
  }

  async replaceIn(stored: StoredDoc, session?: ClientSession): Promise<boolean> {
    return (await this.coll.replaceOne({ _id: stored._id }, stored, { session })).matchedCount === 1;
  }

  async replaceIfRevIn(stored: StoredDoc, expectedRev: number | null, session?: ClientSession): Promise<boolean> {
    // `_rev: null` also matches a document without `_rev`, as SQL's `IS NULL` does in the embedded store.
    return (await this.coll.replaceOne({ _id: stored._id, _rev: expectedRev } as Filter<StoredDoc>, stored, { session })).matchedCount === 1;
  }

  async setFieldsIn(where: Condition, fields: Readonly<Record<string, unknown>>, session?: ClientSession): Promise<number> {
    const set = encodeDoc(this.name, { ...fields });
    if (Object.keys(set).length === 0) return 0;
    return (await this.coll.updateMany(toMongoFilter(where) as Filter<StoredDoc>, { $set: set as Partial<StoredDoc> }, { session })).matchedCount;
  }

  async insertOne(doc: Doc): Promise<void> {
    const stored = this.toStored(doc);
    await this.mapped(() => this.insertIn(stored));
  }

  async insertMany(docs: readonly Doc[]): Promise<void> {
    const stored = docs.map((d) => this.toStored(d));
    if (stored.length === 0) return;
    await this.mapped(() => this.transact((session) => this.coll.insertMany(stored, { ordered: true, session })));
  }

  async findById(id: string): Promise<Doc | null> {
    const found = await this.mapped(() => this.coll.findOne({ _id: id }, { maxTimeMS: MAX_TIME_MS }));
    return found ? decodeDoc(found) : null;
  }

  async findByIds(ids: readonly string[]): Promise<Doc[]> {
    if (ids.length === 0) return [];
    return (await this.mapped(() => this.coll.find({ _id: { $in: [...ids] } }, { maxTimeMS: MAX_TIME_MS }).toArray())).map(decodeDoc);
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    return this.pageAndTotal(query, []);
  }

  async findPage(query: SearchQuery): Promise<Doc[]> {
    const filter = toMongoFilter(query.where) as Filter<StoredDoc>;
    try {
      return await this.page(filter, query, []);
    } catch (err) {
      throw this.explain(err);
    }
  }

  async findIds(where: Condition | null, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    const filter = toMongoFilter(where) as Filter<StoredDoc>;
    try {
      const docs = await this.coll.find(filter, { projection: { _id: 1 }, limit, maxTimeMS: MAX_TIME_MS }).toArray();
      return docs.map((d) => String(d._id));
    } catch (err) {
      throw this.explain(err);
    }
  }

  /** MongoDB hands back documents, not text, so this serialises them after removing `hide`. */
  async searchJson(query: SearchQuery, hide: readonly string[]): Promise<JsonSearchResult> {
    const { docs, total } = await this.pageAndTotal(query, hide);
    const text = docs.map((d) => JSON.stringify(d)).join(',');
    return { json: Buffer.from(text), count: docs.length, total };
  }

  /** One page and its total, read with one filter object. */
  private async pageAndTotal(query: SearchQuery, hide: readonly string[]): Promise<SearchResult> {
    const filter = toMongoFilter(query.where) as Filter<StoredDoc>;
    try {
      const [docs, total] = await Promise.all([this.page(filter, query, hide), this.countFilter(filter)]);
      return { docs, total };
    } catch (err) {
      throw this.explain(err);
    }
  }

  /**
   * One page, decoded, without `hide`. With a byte budget the documents are measured in BSON as they arrive
   * and the read stops at the first past it (refused, or with `shorten` the page ends there), so at most the
   * budget and one batch of the driver's are held.
   */
  private async page(filter: Filter<StoredDoc>, query: SearchQuery, hide: readonly string[]): Promise<Doc[]> {
    // `limit: 0` means "no limit" to the server, but "no documents" here.
    if (query.limit === 0) return [];
    const cursor = this.coll.find(filter, { sort: toMongoSort(query.sort), skip: query.skip, limit: query.limit, maxTimeMS: MAX_TIME_MS });
    const shown = (stored: StoredDoc): Doc => (hide.length > 0 ? applyProjection(decodeDoc(stored), { kind: 'exclude', paths: hide }) : decodeDoc(stored));
    if (query.maxBytes === undefined) return (await cursor.toArray()).map(shown);
    const docs: Doc[] = [];
    let used = 0;
    try {
      for await (const stored of cursor) {
        const doc = shown(stored);
        used += bsonSize(doc);
        // One document always fits: the budget is never below the largest document a store keeps.
        if (used > query.maxBytes && docs.length > 0) {
          if (query.shorten) break;
          throw new PageTooLargeError(query.maxBytes, docs.length);
        }
        docs.push(doc);
      }
    } finally {
      await cursor.close();
    }
    return docs;
  }

  async count(where: Condition | null): Promise<number> {
    try {
      return await this.countFilter(toMongoFilter(where) as Filter<StoredDoc>);
    } catch (err) {
      throw this.explain(err);
    }
  }

  async spans(where: Condition | null, from: string, to: string): Promise<SpanTotal> {
    try {
      const rows = await this.coll.aggregate(spanPipeline(toMongoFilter(where), from, to), { maxTimeMS: MAX_TIME_MS }).toArray();
      const row = rows[0];
      return { count: Number(row?.['count'] ?? 0), total: Number(row?.['total'] ?? 0) };
    } catch (err) {
      throw this.explain(err);
    }
  }

  /** The page and its total use the very same filter object, so they cannot disagree on meaning. */
  private countFilter(filter: Filter<StoredDoc>): Promise<number> {
    // Collection metadata instead of a scan; exact unless the server shut down uncleanly.
    if (Object.keys(filter).length === 0) return this.coll.estimatedDocumentCount({ maxTimeMS: MAX_TIME_MS });
    return this.coll.countDocuments(filter, { maxTimeMS: MAX_TIME_MS });
  }

  private explain(err: unknown): unknown {
    if (err instanceof MongoServerError && err.code === INDEX_NOT_FOUND) {
      // The search service recognises "text index required" and answers 400.
      return new Error(`${this.name}: text index required for text search; build it with POST /indexes/${this.name}`, { cause: err });
    }
    return mongoStoreError(err, this.name);
  }

  async replaceOne(doc: Doc): Promise<boolean> {
    const stored = this.toStored(doc);
    return this.mapped(() => this.replaceIn(stored));
  }

  async replaceIfRev(doc: Doc, expectedRev: number | null): Promise<boolean> {
    const stored = this.toStored(doc);
    return this.mapped(() => this.replaceIfRevIn(stored, expectedRev));
  }

  async deleteIn(id: string, session?: ClientSession): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: id }, { session })).deletedCount === 1;
  }

  async deleteOne(id: string): Promise<boolean> {
    return this.mapped(() => this.deleteIn(id));
  }

  async indexStatus(): Promise<IndexStatus> {
    return (await this.plan()).status;
  }

  /**
   * Builds what is missing without dropping anything first; an index that
   * must be replaced (misnamed, or its name held by another definition) is
   * dropped only right before its replacement is built, and put back as it
   * was when that fails, so a failed build (a unique index meeting duplicate
   * data) leaves every index there was. A declared text index that a foreign
   * one blocks (one text index per collection) is a 409 naming it, after the
   * rest is built.
   */
  async buildIndexes(): Promise<IndexStatus> {
    const plan = await this.plan();
    const replaced = new Set(plan.replace.map((r) => r.index.name));
    const fresh = plan.create.filter((ix) => !replaced.has(ix.name));
    await this.mapped(() => this.createIndexes(fresh)).catch((err: unknown) => {
      throw this.buildFailed(err);
    });
    for (const { index, drop } of plan.replace) {
      for (const old of drop) await this.mapped(() => this.coll.dropIndex(old.name));
      try {
        await this.mapped(() => this.createIndexes([index]));
      } catch (err) {
        for (const old of drop) await this.coll.createIndex(old.key as Document, restoreOptions(old)).catch(() => undefined);
        throw this.buildFailed(err);
      }
    }
    if (plan.blocked.length > 0) {
      const [first] = plan.blocked;
      throw new ConflictError(`${this.name}: the text index ${first!.index.name} cannot be built while the text index ${first!.by} exists (MongoDB allows one text index per collection); drop ${first!.by} and build again`);
    }
    return this.indexStatus();
  }

  private buildFailed(err: unknown): unknown {
    if (err instanceof DuplicateKeyError) return new ConflictError(`${this.name}: a unique index cannot be built while documents share its key; remove the duplicates and build again`);
    return err;
  }

  private async createIndexes(list: readonly { name: string; key: Record<string, 1 | -1 | 'text'>; unique?: boolean }[]): Promise<void> {
    if (list.length === 0) return;
    // One command: the server builds all of them or, when one fails, none.
    await this.coll.createIndexes(list.map((ix) => (ix.unique ? { key: ix.key, name: ix.name, unique: true } : { key: ix.key, name: ix.name })));
  }

  private async plan(): Promise<IndexPlan> {
    let listed: Document[];
    try {
      listed = await this.coll.listIndexes().toArray();
    } catch (err) {
      // A collection that does not exist yet has no indexes at all.
      if (!(err instanceof MongoServerError && err.code === NAMESPACE_NOT_FOUND)) throw mongoStoreError(err, this.name);
      listed = [];
    }
    return planIndexes(this.spec.indexes, listed.map(readListedIndex));
  }
}

/** The options an index was listed with, minus what createIndex refuses to be given. */
function restoreOptions(info: { name: string; raw: Document }): Document {
  const { key: _key, v: _v, ns: _ns, ...options } = info.raw;
  return { ...options, name: info.name };
}
