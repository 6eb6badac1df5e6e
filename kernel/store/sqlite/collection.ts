/** One collection of the embedded store. A page and its total are read in one transaction, so from one snapshot. */
import type { Database, Statement } from 'better-sqlite3';
import type { Condition } from '../../search/conditions.ts';
import type { CollectionSpec } from '../collections.ts';
import { checkDocumentSize } from '../limits.ts';
import { DuplicateKeyError } from '../types.ts';
import type { Doc, DocCollection, IndexStatus, JsonSearchResult, SearchQuery, SearchResult, SpanTotal } from '../types.ts';
import { ftsTable, generatedPaths, jsonPath, quoteIdent } from './columns.ts';
import { TEXT_TIDY_DEFAULTS, TextTidy } from './text-tidy.ts';
import type { TextTidyOptions } from './text-tidy.ts';
import { CollectionTotals } from './collection-totals.ts';
import { compareIndexes } from './index-status.ts';
import { SqlCompiler } from './compile.ts';
import { roomyBytes } from '../json-page.ts';
import { readPage } from './page-read.ts';
import type { ReadSource } from './page-read.ts';
import { readSpans } from './span-read.ts';
import { createIndex, dropIndex } from './schema.ts';
import { storeError } from './store-errors.ts';
import type { SearchThread } from './search-thread.ts';

const STATEMENT_CACHE = 256;

export class SqliteCollection implements DocCollection {
  readonly name: string;
  private readonly table: string;
  private readonly compiler: SqlCompiler;
  private readonly statements = new Map<string, Statement>();
  private readonly totals: CollectionTotals;
  /** Only for a collection with a text index. */
  private readonly tidy: TextTidy | null;
  private readonly source: ReadSource;

  /**
   * `tidy`: null for a connection that only reads (the search thread's). `searchThread`: where `searchJson` runs
   * while it is ready (search-thread.ts).
   */
  constructor(
    private readonly db: Database,
    private readonly spec: CollectionSpec,
    countCacheEntries: number,
    tidy: TextTidyOptions | null = TEXT_TIDY_DEFAULTS,
    private readonly searchThread: () => SearchThread | null = () => null,
  ) {
    this.name = spec.name;
    this.table = quoteIdent(spec.name);
    this.compiler = new SqlCompiler(spec.name, new Set(generatedPaths(spec)));
    const text = spec.indexes.some((ix) => Object.values(ix.key).includes('text'));
    this.totals = new CollectionTotals(db, spec.name, this.table, this.compiler, (sql) => this.stmt(sql), { countCacheEntries, text, changeMarked: spec.changeMarked === true });
    this.tidy = text && tidy ? new TextTidy(db, spec.name, ftsTable(spec.name), tidy) : null;
    this.source = { db, table: this.table, compiler: this.compiler, totals: this.totals, stmt: (sql) => this.stmt(sql) };
  }

  /** Stops a text-index tidy under way (the store closing). */
  closeTidy(): Promise<void> {
    return this.tidy?.close() ?? Promise.resolve();
  }

  /** The text-index tidy's figures, once a tidy under way has finished (tests, benches). */
  async tidyFigures(): Promise<ReturnType<TextTidy['figures']> | null> {
    await this.tidy?.settled();
    return this.tidy?.figures() ?? null;
  }

  /** Before an update or delete: totals dropped, the mark moved, and this transaction's inserts counted, so its triggers meet no uncounted row. */
  private rewriting(): void {
    this.totals.changed();
    this.totals.countInserts();
  }

  changeMark(): string | null {
    return this.totals.changeMark();
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, s);
    }
    return s;
  }

  private idOf(doc: Doc): string {
    const id = doc['_id'];
    if (typeof id !== 'string' || id.length === 0) throw new TypeError(`${this.name}: documents need a string _id`);
    return id;
  }

  /** The document as stored JSON (`given` when the writer made it already), refused when MongoDB could not hold it either. */
  private json(doc: Doc, given?: string): string {
    const json = given ?? JSON.stringify(doc);
    checkDocumentSize(this.name, doc, json.length);
    return json;
  }

  private rethrow(err: unknown): never {
    const code = (err as { code?: unknown }).code;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      const detail = String((err as Error).message);
      throw new DuplicateKeyError(this.name, detail.includes('.id') ? '_id' : 'unique key');
    }
    throw storeError(err);
  }

  /** The transaction's inserts, counted (collection-totals.ts); every writer calls it before it commits. */
  countInserts(): void {
    this.totals.countInserts();
  }

  discardInserts(): void {
    this.totals.discardInserts();
  }

  /** `write` and the counting of its inserts, in one write transaction (or the caller's, when one is open). */
  private counting<T>(write: () => T): T {
    try {
      return this.db.transaction(() => {
        const result = write();
        this.countInserts();
        return result;
      }).immediate();
    } catch (err) {
      this.discardInserts();
      this.rethrow(err);
    }
  }

  /** Store.increment's writes; the caller runs them in one write transaction and counts their insert. */
  incrementSync(id: string, expiresAt: number, now: number): number {
    this.totals.changed();
    const expiry = `json_extract(doc, '$.expiresAt')`;
    try {
      this.stmt(`DELETE FROM ${this.table} WHERE ${expiry} <= ?`).run(now);
      // An upsert inserts only when the counter is not there; only then is there a row to count.
      if (this.stmt(`SELECT 1 FROM ${this.table} WHERE id = ?`).get(id) === undefined) this.totals.noteInsert();
      const row = this.stmt(
        `INSERT INTO ${this.table} (id, doc) VALUES (?, jsonb(?)) ON CONFLICT(id) DO UPDATE SET doc = jsonb_set(doc, '$.count', json_extract(doc, '$.count') + 1) RETURNING json_extract(doc, '$.count') AS count`,
      ).get(id, JSON.stringify({ _id: id, count: 1, expiresAt })) as { count: number };
      return row.count;
    } catch (err) {
      this.rethrow(err);
    }
  }

  async insertOne(doc: Doc): Promise<void> {
    this.counting(() => this.insertSync(doc));
  }

  /**
   * The synchronous writes also serve the store's batches, which run inside one transaction. An insert is
   * counted by `countInserts`, which its transaction calls before it commits.
   */
  insertSync(doc: Doc, json?: string): void {
    this.totals.changed();
    try {
      const text = this.json(doc, json);
      this.totals.noteInsert();
      this.stmt(`INSERT INTO ${this.table} (id, doc) VALUES (?, jsonb(?))`).run(this.idOf(doc), text);
    } catch (err) {
      this.rethrow(err);
    }
  }

  async insertMany(docs: readonly Doc[]): Promise<void> {
    this.counting(() => {
      for (const doc of docs) this.insertSync(doc);
    });
  }

  async findById(id: string): Promise<Doc | null> {
    const row = this.stmt(`SELECT json(doc) AS doc FROM ${this.table} WHERE id = ?`).get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as Doc) : null;
  }

  async findByIds(ids: readonly string[]): Promise<Doc[]> {
    if (ids.length === 0) return [];
    const rows = this.stmt(`SELECT json(doc) AS doc FROM ${this.table} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as Array<{ doc: string }>;
    return rows.map((r) => JSON.parse(r.doc) as Doc);
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const page = readPage(this.source, query, [], (doc) => JSON.parse(doc) as Doc);
    return { docs: page.docs, total: page.total };
  }

  async findPage(query: SearchQuery): Promise<Doc[]> {
    return readPage(this.source, query, [], (doc) => JSON.parse(doc) as Doc, false).docs;
  }

  async findIds(where: Condition | null, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    const w = this.compiler.where(where);
    const rows = this.stmt(`SELECT t.id AS id FROM ${this.table} AS t WHERE ${w.sql} LIMIT ?`).all(...w.params, limit) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }

  /** A caller's search: on the search thread once it is ready, so however long it reads, the event loop goes on. */
  async searchJson(query: SearchQuery, hide: readonly string[], caller = ''): Promise<JsonSearchResult> {
    const thread = this.searchThread();
    if (thread?.ready) return thread.searchJson(this.name, query, hide, caller);
    return this.searchJsonHere(query, hide);
  }

  /**
   * `searchJson` on this connection's thread. The bytes have an ArrayBuffer of their own, never Node's shared
   * pool, so the search thread can hand them over without a copy, with room for an answer's envelope (json-page.ts).
   */
  searchJsonHere(query: SearchQuery, hide: readonly string[]): JsonSearchResult {
    const page = readPage(this.source, query, hide, (doc) => doc);
    const json = roomyBytes(page.docs.join(','));
    return { json, count: page.docs.length, total: page.total };
  }

  /** The total from the value counters, or null when the query's shape is not covered (for tests and metrics). */
  countedTotal(where: Condition | null): number | null {
    return this.totals.counter(where);
  }

  async count(where: Condition | null): Promise<number> {
    return this.totals.now(where);
  }

  /** On the search thread once it is ready, like a caller's search: a span total reads every row selected. */
  async spans(where: Condition | null, from: string, to: string, caller = ''): Promise<SpanTotal> {
    const thread = this.searchThread();
    if (thread?.ready) return thread.spans(this.name, where, from, to, caller);
    return this.spansHere(where, from, to);
  }

  /** `spans` on this connection's thread: one statement, so the count and the total come from one snapshot. */
  spansHere(where: Condition | null, from: string, to: string): SpanTotal {
    return readSpans(this.source, where, from, to);
  }

  async replaceOne(doc: Doc): Promise<boolean> {
    return this.replaceSync(doc);
  }

  replaceSync(doc: Doc): boolean {
    this.rewriting();
    try {
      return this.stmt(`UPDATE ${this.table} SET doc = jsonb(?) WHERE id = ?`).run(this.json(doc), this.idOf(doc)).changes === 1;
    } catch (err) {
      this.rethrow(err);
    }
  }

  async replaceIfRev(doc: Doc, expectedRev: number | null): Promise<boolean> {
    return this.replaceIfRevSync(doc, expectedRev);
  }

  replaceIfRevSync(doc: Doc, expectedRev: number | null, json?: string): boolean {
    this.rewriting();
    try {
      return this.stmt(`UPDATE ${this.table} SET doc = jsonb(?) WHERE id = ? AND json_extract(doc, '$._rev') IS ?`).run(this.json(doc, json), this.idOf(doc), expectedRev).changes === 1;
    } catch (err) {
      this.rethrow(err);
    }
  }

  /** Top-level fields set in place on every document `where` selects; answers how many. */
  setFieldsSync(where: Condition, fields: Readonly<Record<string, unknown>>): number {
    const entries = Object.entries(fields);
    if (entries.length === 0) return 0;
    this.rewriting();
    const w = this.compiler.where(where);
    const sets = entries.map(() => ', ?, jsonb(?)').join('');
    try {
      return this.stmt(`UPDATE ${this.table} AS t SET doc = jsonb_set(doc${sets}) WHERE ${w.sql}`).run(...entries.flatMap(([k, v]) => [jsonPath(k), JSON.stringify(v)]), ...w.params).changes;
    } catch (err) {
      this.rethrow(err);
    }
  }

  async deleteOne(id: string): Promise<boolean> {
    return this.deleteSync(id);
  }

  deleteSync(id: string): boolean {
    this.rewriting();
    try {
      const deleted = this.stmt(`DELETE FROM ${this.table} WHERE id = ?`).run(id).changes === 1;
      if (deleted) this.tidy?.noteDelete();
      return deleted;
    } catch (err) {
      this.rethrow(err);
    }
  }

  async indexStatus(): Promise<IndexStatus> {
    return compareIndexes(this.db, this.spec).status;
  }

  async buildIndexes(): Promise<IndexStatus> {
    const { toCreate, toDrop } = compareIndexes(this.db, this.spec);
    this.db.transaction(() => {
      for (const name of toDrop) dropIndex(this.db, name);
      for (const ix of toCreate) createIndex(this.db, this.name, ix);
    })();
    this.statements.clear();
    return compareIndexes(this.db, this.spec).status;
  }
}
