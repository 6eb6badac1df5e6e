/**
 * One repository over a declared collection: the get-or-404, the
 * duplicate-to-conflict and the revision-checked read-modify-write that each
 * service used to write for itself. It is a thin layer over DocCollection,
 * not another store: search, count and batches stay the collection's.
 *
 * A declaration names the collection once (its CollectionSpec, which the
 * store builds), says what one document is called in messages, and carries
 * the document's TypeScript type, so callers get `T` without casts. The one
 * cast between `T` and the store's `Doc` is in this file.
 *
 * Revisions (docs/architecture.md, "Repositories"): a document's `_rev` is a
 * number the store compares on `replaceIfRev`; a write stores `(rev ?? 0) + 1`.
 * A document stored before revisions existed has none, reads as revision 0
 * and is written with 1; a document created at `_rev: 0` is written with 1 too.
 */
import { AppError, ConflictError, NotFoundError } from '../errors.ts';
import type { CollectionSpec } from './collections.ts';
import { DuplicateKeyError } from './types.ts';
import type { Doc, DocCollection, SearchQuery, Store } from './types.ts';

/** What every stored document has: its key. */
export interface Keyed {
  _id: string;
}

export interface DeclarationOptions<T extends Keyed> {
  /** What one document is called in messages, in lower case: `trigger`, `service account`. */
  readonly noun: string;
  /** The 404's message, when the surface's clients know another than `<Noun> <id> was not found`. */
  readonly notFound?: (id: string) => string;
  /**
   * The unique name a conflict names, other than the id: the parameter a
   * caller changes to resolve it and how the name reads (`jobReader of
   * OperationsManager`). The document's `name` unless told.
   */
  readonly uniqueName?: { readonly parameter: string; readonly of: (doc: T) => string };
  /** A refusal of another shape than the 409 of duplicateRefusal: a platform's own 400, say. */
  readonly duplicate?: (doc: T, key: string) => AppError;
}

export interface CollectionDeclaration<T extends Keyed> {
  readonly spec: CollectionSpec;
  readonly name: string;
  readonly noun: string;
  notFound(id: string): NotFoundError;
  duplicate(doc: T, key: string): AppError;
}

/** How many times `update` reads again after losing a race before it gives up with a 409. */
export const UPDATE_ATTEMPTS = 5;

/** `trigger` → `Trigger`; `a`/`an` by the first letter, which is right for every noun we use. */
const capital = (noun: string) => noun.charAt(0).toUpperCase() + noun.slice(1);
const article = (noun: string) => (/^[aeiou]/i.test(noun) ? 'An' : 'A');

/**
 * The one message factory for a write the store refused as a duplicate: the
 * id when the key was `_id`, otherwise the unique name, each naming the
 * parameter the caller can change.
 */
export function duplicateRefusal(noun: string, key: string, id: string, name: { readonly parameter: string; readonly text: string } | null): ConflictError {
  if (key === '_id' || name === null) return new ConflictError(`${article(noun)} ${noun} with id ${id} already exists`, [{ parameter: '_id', message: `is already the id of another ${noun}` }]);
  return new ConflictError(`${article(noun)} ${noun} named ${name.text} already exists`, [{ parameter: name.parameter, message: `is already the ${name.parameter} of another ${noun}` }]);
}

/** The document's `name`, when it has one: what a unique index other than `_id` usually keys. */
function nameField(doc: Keyed): { parameter: string; text: string } | null {
  const name = (doc as { name?: unknown }).name;
  return typeof name === 'string' ? { parameter: 'name', text: name } : null;
}

/** A collection's declaration; `T` is the stored document's type, given explicitly. */
export function declareCollection<T extends Keyed>(spec: CollectionSpec, options: DeclarationOptions<T>): CollectionDeclaration<T> {
  const { noun } = options;
  const { uniqueName } = options;
  const nameOf = (doc: T) => (uniqueName ? { parameter: uniqueName.parameter, text: uniqueName.of(doc) } : nameField(doc));
  return Object.freeze({
    spec,
    name: spec.name,
    noun,
    notFound: (id: string) => new NotFoundError(options.notFound ? options.notFound(id) : `${capital(noun)} ${id} was not found`),
    duplicate: options.duplicate ?? ((doc: T, key: string) => duplicateRefusal(noun, key, doc._id, nameOf(doc))),
  });
}

/** The revision a document was read at: null for one stored before revisions. */
export function revisionOf(doc: object): number | null {
  const rev = (doc as { _rev?: unknown })._rev;
  return typeof rev === 'number' ? rev : null;
}

export interface Repository<T extends Keyed> {
  readonly declaration: CollectionDeclaration<T>;
  /** The collection itself, for what the repository does not wrap (search pages as JSON, counts, ids). */
  readonly collection: DocCollection;
  find(id: string): Promise<T | null>;
  /** The document, or a 404 naming the noun and the id. */
  get(id: string): Promise<T>;
  findMany(ids: readonly string[]): Promise<T[]>;
  search(query: SearchQuery): Promise<{ docs: T[]; total: number }>;
  /** One page without its total (DocCollection.findPage): for walks that page by key. */
  findPage(query: SearchQuery): Promise<T[]>;
  /** Stores a new document; a taken id or unique name is the declaration's refusal (409 unless it says otherwise). */
  insert(doc: T): Promise<T>;
  /**
   * Stores each document whose id is not stored yet and skips the others:
   * records replayed after a crash (a journal's) are stored once. Answers how
   * many were new.
   */
  insertNew(docs: readonly T[]): Promise<number>;
  /** Replaces without a revision check (for documents only one writer changes); 404 when it is gone. */
  replace(doc: T): Promise<T>;
  /**
   * Stores the document whether or not one with its id exists, the last
   * writer winning: for records each writer rewrites whole (a process's
   * heartbeat, a discovery). Another writer's insert between our replace
   * and our insert is overwritten, not refused.
   */
  put(doc: T): Promise<T>;
  /**
   * Reads, applies `mutate` and writes only if nobody wrote in between; on a
   * lost race reads again and reapplies, at most UPDATE_ATTEMPTS times, then
   * 409. `mutate` may throw to refuse (it sees the document as it now is).
   */
  update(id: string, mutate: (current: T) => T | Promise<T>): Promise<T>;
  /**
   * One compare-and-set: stores `next` at the revision after `current`'s,
   * only while the stored document is still at `current`'s. The written
   * document, or null when another writer got there first (or it is gone).
   */
  swap(current: T, next: T): Promise<T | null>;
  /** Deletes; a 404 when there was nothing to delete. */
  delete(id: string): Promise<void>;
  /** Deletes if there is one to delete; answers whether there was. */
  remove(id: string): Promise<boolean>;
}

/** The store's Doc is `T` seen as data; this is the only place that says so. */
const asDoc = <T extends Keyed>(doc: T): Doc => doc as unknown as Doc;
const asT = <T extends Keyed>(doc: Doc): T => doc as unknown as T;

export function repository<T extends Keyed>(store: Store, declaration: CollectionDeclaration<T>): Repository<T> {
  const collection = store.collection(declaration.name);

  async function refusingDuplicates<R>(doc: T, write: () => Promise<R>): Promise<R> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof DuplicateKeyError) throw declaration.duplicate(doc, err.key);
      throw err;
    }
  }

  async function find(id: string): Promise<T | null> {
    const doc = await collection.findById(id);
    return doc ? asT<T>(doc) : null;
  }

  async function get(id: string): Promise<T> {
    const doc = await find(id);
    if (!doc) throw declaration.notFound(id);
    return doc;
  }

  async function swap(current: T, next: T): Promise<T | null> {
    const rev = revisionOf(current);
    const written = { ...next, _rev: (rev ?? 0) + 1 };
    return (await refusingDuplicates(written, () => collection.replaceIfRev(asDoc(written), rev))) ? written : null;
  }

  return {
    declaration,
    collection,
    find,
    get,
    findMany: async (ids) => (await collection.findByIds(ids)).map((d) => asT<T>(d)),
    search: async (query) => {
      const page = await collection.search(query);
      return { docs: page.docs.map((d) => asT<T>(d)), total: page.total };
    },
    findPage: async (query) => (await collection.findPage(query)).map((d) => asT<T>(d)),
    insert: async (doc) => {
      await refusingDuplicates(doc, () => collection.insertOne(asDoc(doc)));
      return doc;
    },
    insertNew: async (docs) => {
      try {
        await collection.insertMany(docs.map((d) => asDoc(d)));
        return docs.length;
      } catch (err) {
        if (!(err instanceof DuplicateKeyError)) throw err;
      }
      // The batch was refused whole: store only those not there yet.
      const stored = new Set((await collection.findByIds(docs.map((d) => d._id))).map((d) => d['_id']));
      const fresh = docs.filter((d) => !stored.has(d._id));
      if (fresh.length > 0) await collection.insertMany(fresh.map((d) => asDoc(d)));
      return fresh.length;
    },
    replace: async (doc) => {
      if (!(await refusingDuplicates(doc, () => collection.replaceOne(asDoc(doc))))) throw declaration.notFound(doc._id);
      return doc;
    },
    put: (doc) =>
      refusingDuplicates(doc, async () => {
        if (await collection.replaceOne(asDoc(doc))) return doc;
        try {
          await collection.insertOne(asDoc(doc));
        } catch (err) {
          // Inserted by another writer meanwhile: this write is the later one. (A store names one
          // violated key of several, so the id is asked for, not read from the error.)
          if (!(err instanceof DuplicateKeyError) || !(await collection.replaceOne(asDoc(doc)))) throw err;
        }
        return doc;
      }),
    update: async (id, mutate) => {
      for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt += 1) {
        const current = await get(id);
        // mutate gets its own copy: what it changes must not alter `current`, whose revision is checked.
        const written = await swap(current, await mutate(structuredClone(current)));
        if (written) return written;
      }
      throw new ConflictError(`${capital(declaration.noun)} ${id} kept changing while it was being updated; try again`);
    },
    swap,
    delete: async (id) => {
      if (!(await collection.deleteOne(id))) throw declaration.notFound(id);
    },
    remove: (id) => collection.deleteOne(id),
  };
}
