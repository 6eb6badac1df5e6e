/**
 * One collection of the embedded store. Reads of a page and its total run in
 * one read transaction, so both come from the same snapshot.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Condition } from '../../search/conditions.ts';
import type { CollectionName, CollectionSpec } from '../collections.ts';
import { keyParts } from '../collections.ts';
import { DuplicateKeyError } from '../types.ts';
import type { Doc, DocCollection, IndexDescription, IndexStatus, SearchQuery, SearchResult } from '../types.ts';
import { columnName, generatedPaths, quoteIdent } from './columns.ts';
import { SqlCompiler } from './compile.ts';
import { createIndex, dropIndex, hasTextIndex, listIndexes, sqliteIndexName } from './schema.ts';

const STATEMENT_CACHE = 256;

export class SqliteCollection implements DocCollection {
  readonly name: CollectionName;
  private readonly table: string;
  private readonly compiler: SqlCompiler;
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: Database, private readonly spec: CollectionSpec) {
    this.name = spec.name;
    this.table = quoteIdent(spec.name);
    this.compiler = new SqlCompiler(spec.name);
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

  private rethrow(err: unknown): never {
    const code = (err as { code?: unknown }).code;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      const detail = String((err as Error).message);
      throw new DuplicateKeyError(this.name, detail.includes('.id') ? '_id' : 'unique key');
    }
    throw err;
  }

  async insertOne(doc: Doc): Promise<void> {
    try {
      this.stmt(`INSERT INTO ${this.table} (id, doc) VALUES (?, jsonb(?))`).run(this.idOf(doc), JSON.stringify(doc));
    } catch (err) {
      this.rethrow(err);
    }
  }

  async insertMany(docs: readonly Doc[]): Promise<void> {
    const insert = this.stmt(`INSERT INTO ${this.table} (id, doc) VALUES (?, jsonb(?))`);
    try {
      this.db.transaction(() => {
        for (const doc of docs) insert.run(this.idOf(doc), JSON.stringify(doc));
      })();
    } catch (err) {
      this.rethrow(err);
    }
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
    const where = this.compiler.where(query.where);
    const order = this.compiler.orderBy(query.sort);
    const pageSql = `SELECT t.seq AS seq FROM ${this.table} AS t WHERE ${where.sql}${order ? ` ORDER BY ${order}` : ''} LIMIT ? OFFSET ?`;
    const countSql = `SELECT count(*) AS n FROM ${this.table} AS t WHERE ${where.sql}`;
    const docsSql = `SELECT seq, json(doc) AS doc FROM ${this.table} WHERE seq IN (SELECT value FROM json_each(?))`;
    return this.db.transaction((): SearchResult => {
      const total = (this.stmt(countSql).get(...where.params) as { n: number }).n;
      if (query.limit === 0 || query.skip >= total) return { docs: [], total };
      const seqs = (this.stmt(pageSql).all(...where.params, query.limit, query.skip) as Array<{ seq: number }>).map((r) => r.seq);
      const rows = this.stmt(docsSql).all(JSON.stringify(seqs)) as Array<{ seq: number; doc: string }>;
      const bySeq = new Map(rows.map((r) => [r.seq, r.doc]));
      return { docs: seqs.map((s) => JSON.parse(bySeq.get(s)!) as Doc), total };
    })();
  }

  async count(where: Condition | null): Promise<number> {
    const w = this.compiler.where(where);
    return (this.stmt(`SELECT count(*) AS n FROM ${this.table} AS t WHERE ${w.sql}`).get(...w.params) as { n: number }).n;
  }

  async replaceOne(doc: Doc): Promise<boolean> {
    try {
      return this.stmt(`UPDATE ${this.table} SET doc = jsonb(?) WHERE id = ?`).run(JSON.stringify(doc), this.idOf(doc)).changes === 1;
    } catch (err) {
      this.rethrow(err);
    }
  }

  async deleteOne(id: string): Promise<boolean> {
    return this.stmt(`DELETE FROM ${this.table} WHERE id = ?`).run(id).changes === 1;
  }

  async indexStatus(): Promise<IndexStatus> {
    return this.status().status;
  }

  async buildIndexes(): Promise<IndexStatus> {
    const { missing, misnamedExisting } = this.status();
    this.db.transaction(() => {
      for (const name of misnamedExisting) dropIndex(this.db, name);
      for (const ix of missing) createIndex(this.db, this.name, ix);
    })();
    this.statements.clear();
    return this.status().status;
  }

  private status(): { status: IndexStatus; missing: IndexDescription[]; misnamedExisting: string[] } {
    const pathOf = new Map<string, string>([['id', '_id'], ...generatedPaths(this.spec).map((p) => [columnName(p), p] as [string, string])]);
    const existing = listIndexes(this.db, this.name);
    const signature = (cols: Array<[string, 1 | -1 | 'text']>, unique: boolean): string => `${unique ? 'u' : ''}${JSON.stringify(cols)}`;
    const used = new Set<string>();
    const missing: IndexDescription[] = [];
    const misnamed: IndexDescription[] = [];
    const misnamedExisting: string[] = [];
    for (const ix of this.spec.indexes) {
      const parts = keyParts(ix);
      if (parts.some(([, d]) => d === 'text')) {
        if (!hasTextIndex(this.db, this.name)) missing.push(ix);
        continue;
      }
      const wanted = signature(parts.map(([p, d]) => [columnName(p), d]), ix.unique === true);
      const match = existing.find((e) => !used.has(e.sqliteName) && signature(e.columns, e.unique) === wanted);
      if (!match) missing.push(ix);
      else {
        used.add(match.sqliteName);
        if (match.sqliteName !== sqliteIndexName(this.name, ix)) {
          misnamed.push(ix);
          misnamedExisting.push(match.sqliteName);
        }
      }
    }
    const external = existing
      .filter((e) => !used.has(e.sqliteName))
      .map((e): IndexDescription => {
        const key: Record<string, 1 | -1> = {};
        for (const [col, dir] of e.columns) key[pathOf.get(col) ?? col] = dir;
        const name = e.sqliteName.startsWith(`${this.name}.`) ? e.sqliteName.slice(this.name.length + 1) : e.sqliteName;
        return e.unique ? { name, key, unique: true } : { name, key };
      });
    return {
      status: { missing, misnamed, external, indexed: missing.length === 0 && misnamed.length === 0 },
      missing: [...missing, ...misnamed],
      misnamedExisting,
    };
  }
}

