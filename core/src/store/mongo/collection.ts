/**
 * One MongoDB collection behind the DocCollection interface. Behaviour follows
 * the SQLite store: `_id` is the string the document carries, documents are
 * stored and returned as plain JSON, and a batch insert is all or nothing as
 * far as a server without transactions allows.
 */
import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import type { Collection, Filter } from 'mongodb';
import type { Condition } from '../../search/conditions.ts';
import { toMongoFilter, toMongoSort } from '../../search/to-mongo.ts';
import type { CollectionName, CollectionSpec } from '../collections.ts';
import { DuplicateKeyError } from '../types.ts';
import type { Doc, DocCollection, IndexStatus, JsonSearchResult, SearchQuery, SearchResult } from '../types.ts';
import { applyProjection } from '../../search/projection.ts';
import { planIndexes, readListedIndex } from './indexes.ts';
import type { IndexPlan } from './indexes.ts';

/** Stored shape: any JSON object whose `_id` is a string. */
export type StoredDoc = Doc & { _id: string };

/** Reads give up after this long instead of holding a request forever. */
export const MAX_TIME_MS = 30_000;

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;

/** `E11000 duplicate key error collection: iap.jobs index: _id_ dup key: ...` names the index. */
export function duplicateKeyName(message: string): '_id' | 'unique key' {
  return /\bindex: _id_ /.test(message) ? '_id' : 'unique key';
}

export class MongoCollection implements DocCollection {
  readonly name: CollectionName;

  constructor(private readonly coll: Collection<StoredDoc>, private readonly spec: CollectionSpec) {
    this.name = spec.name;
  }

  /**
   * A JSON round trip gives the SQLite store's semantics (Dates become ISO
   * strings, undefined members vanish) and keeps the driver from touching the
   * caller's object.
   */
  private toStored(doc: Doc): StoredDoc {
    const id = doc['_id'];
    if (typeof id !== 'string' || id.length === 0) throw new TypeError(`${this.name}: documents need a string _id`);
    return JSON.parse(JSON.stringify(doc)) as StoredDoc;
  }

  private duplicate(err: unknown): DuplicateKeyError | null {
    if (!(err instanceof MongoServerError) || err.code !== DUPLICATE_KEY) return null;
    return new DuplicateKeyError(this.name, duplicateKeyName(err.message));
  }

  async insertOne(doc: Doc): Promise<void> {
    const stored = this.toStored(doc);
    try {
      await this.coll.insertOne(stored);
    } catch (err) {
      throw this.duplicate(err) ?? err;
    }
  }

  async insertMany(docs: readonly Doc[]): Promise<void> {
    const stored = docs.map((d) => this.toStored(d));
    if (stored.length === 0) return;
    try {
      await this.coll.insertMany(stored, { ordered: true });
    } catch (err) {
      if (!(err instanceof MongoBulkWriteError)) throw err;
      const writeErrors = Array.isArray(err.writeErrors) ? err.writeErrors : [err.writeErrors];
      const first = writeErrors[0];
      // Ordered: everything before the first failed write was inserted by this
      // call and nothing after it, so exactly those are taken back. Readers may
      // see them briefly; without a replica set there is no transaction.
      if (first) {
        const inserted = stored.slice(0, first.index).map((d) => d._id);
        if (inserted.length > 0) await this.coll.deleteMany({ _id: { $in: inserted } });
        if (first.code === DUPLICATE_KEY) throw new DuplicateKeyError(this.name, duplicateKeyName(first.errmsg ?? ''));
      }
      throw err;
    }
  }

  async findById(id: string): Promise<Doc | null> {
    return this.coll.findOne({ _id: id }, { maxTimeMS: MAX_TIME_MS });
  }

  async findByIds(ids: readonly string[]): Promise<Doc[]> {
    if (ids.length === 0) return [];
    return this.coll.find({ _id: { $in: [...ids] } }, { maxTimeMS: MAX_TIME_MS }).toArray();
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const filter = toMongoFilter(query.where) as Filter<StoredDoc>;
    const sort = toMongoSort(query.sort);
    try {
      // `limit: 0` means "no limit" to the server, but "no documents" here.
      const page = query.limit === 0
        ? Promise.resolve([])
        : this.coll.find(filter, { sort, skip: query.skip, limit: query.limit, maxTimeMS: MAX_TIME_MS }).toArray();
      const [docs, total] = await Promise.all([page, this.countFilter(filter)]);
      return { docs, total };
    } catch (err) {
      throw this.explain(err);
    }
  }

  /** MongoDB hands back documents, not text, so this serialises them after removing `hide`. */
  async searchJson(query: SearchQuery, hide: readonly string[]): Promise<JsonSearchResult> {
    const { docs, total } = await this.search(query);
    const projection = { kind: 'exclude', paths: hide } as const;
    return { json: docs.map((d) => JSON.stringify(hide.length > 0 ? applyProjection(d, projection) : d)), total };
  }

  async count(where: Condition | null): Promise<number> {
    try {
      return await this.countFilter(toMongoFilter(where) as Filter<StoredDoc>);
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
    return err;
  }

  async replaceOne(doc: Doc): Promise<boolean> {
    const stored = this.toStored(doc);
    try {
      return (await this.coll.replaceOne({ _id: stored._id }, stored)).matchedCount === 1;
    } catch (err) {
      throw this.duplicate(err) ?? err;
    }
  }

  async replaceIfRev(doc: Doc, expectedRev: number | null): Promise<boolean> {
    const stored = this.toStored(doc);
    const result = await this.coll.replaceOne({ _id: stored._id, _rev: expectedRev } as Filter<StoredDoc>, stored);
    return result.matchedCount === 1;
  }

  async deleteOne(id: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: id })).deletedCount === 1;
  }

  async indexStatus(): Promise<IndexStatus> {
    return (await this.plan()).status;
  }

  async buildIndexes(): Promise<IndexStatus> {
    const { drop, create } = await this.plan();
    for (const name of drop) await this.coll.dropIndex(name);
    if (create.length > 0) {
      await this.coll.createIndexes(create.map((ix) => (ix.unique ? { key: ix.key, name: ix.name, unique: true } : { key: ix.key, name: ix.name })));
    }
    return this.indexStatus();
  }

  private async plan(): Promise<IndexPlan> {
    let listed;
    try {
      listed = await this.coll.listIndexes().toArray();
    } catch (err) {
      // A collection that does not exist yet has no indexes at all.
      if (!(err instanceof MongoServerError && err.code === NAMESPACE_NOT_FOUND)) throw err;
      listed = [];
    }
    return planIndexes(this.spec.indexes, listed.map(readListedIndex));
  }
}
