/**
 * Table layout of the embedded store: one table per collection holding each
 * document as JSONB, plus virtual generated columns (see columns.ts) that the
 * declared indexes are built on. Text indexes are FTS5 tables kept in step by
 * triggers.
 */
import type { Database } from 'better-sqlite3';
import type { CollectionSpec } from '../collections.ts';
import { keyParts } from '../collections.ts';
import type { IndexDescription } from '../types.ts';
import { columnName, ensureTrigger, ftsTable, generatedPaths, jsonPath, quoteIdent, quoteText } from './columns.ts';

function generatedColumn(path: string): string {
  return `${quoteIdent(columnName(path))} GENERATED ALWAYS AS (json_extract(doc, '${jsonPath(path)}')) VIRTUAL`;
}

/**
 * Creates the table of a collection, or adds the generated columns a newer
 * registry declares to an existing one (virtual columns cost no rewrite).
 * Answers true when the table is new.
 */
export function createTable(db: Database, spec: CollectionSpec): boolean {
  const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(spec.name) !== undefined;
  if (exists) {
    const present = new Set((db.prepare(`SELECT name FROM pragma_table_xinfo(?)`).all(spec.name) as Array<{ name: string }>).map((c) => c.name));
    for (const path of generatedPaths(spec)) {
      if (!present.has(columnName(path))) db.exec(`ALTER TABLE ${quoteIdent(spec.name)} ADD COLUMN ${generatedColumn(path)}`);
    }
    return false;
  }
  const columns = generatedPaths(spec).map(generatedColumn);
  db.exec(`CREATE TABLE ${quoteIdent(spec.name)} (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    doc BLOB NOT NULL${columns.map((c) => `,\n    ${c}`).join('')}
  )`);
  return true;
}

/** SQLite index names are global, so each carries its collection. */
export function sqliteIndexName(collection: string, ix: IndexDescription): string {
  return `${collection}.${ix.name}`;
}

export function createIndex(db: Database, collection: string, ix: IndexDescription): void {
  const parts = keyParts(ix);
  const text = parts.find(([, dir]) => dir === 'text');
  if (text) {
    createTextIndex(db, collection, text[0]);
    return;
  }
  const cols = physicalColumns(ix).map(([column]) => quoteIdent(column)).join(', ');
  db.exec(`CREATE ${ix.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quoteIdent(sqliteIndexName(collection, ix))} ON ${quoteIdent(collection)} (${cols})`);
}

/**
 * The columns an index is built on in SQLite: the declared ones, every one
 * ascending. A search's order is one field then `_id`, both one way, so the
 * planner walks such an index forwards or backwards alike (and backwards
 * after an equality on its first column). A descending index of a time,
 * whose new keys are the largest, takes each new key at its low end, and
 * SQLite splits a full index page there into two half-full ones: such an
 * index kept half of every leaf empty (2,050 of 4,096 bytes on average)
 * and was 1.75 times the size of the same index built ascending, which is
 * filled at its high end and keeps its leaves about seven-eighths full
 * (BENCHMARKS.md, "The nineteenth session").
 */
export function physicalColumns(ix: IndexDescription): Array<[string, 1]> {
  return keyParts(ix).map(([path]) => [columnName(path), 1]);
}

export function dropIndex(db: Database, sqliteName: string): void {
  db.exec(`DROP INDEX IF EXISTS ${quoteIdent(sqliteName)}`);
}

const TRIGGER_SUFFIXES = ['ai', 'ad', 'au'] as const;

/** How the text index splits and stems words; text-totals.ts splits a searched word the same way. */
export const TEXT_TOKENIZER = 'porter unicode61 remove_diacritics 2';

/** A contentless FTS5 table over one field, filled now and kept current by triggers. */
function createTextIndex(db: Database, collection: string, path: string): void {
  const fts = quoteIdent(ftsTable(collection));
  const table = quoteIdent(collection);
  const col = quoteIdent(columnName(path));
  const trigger = (suffix: string): string => quoteIdent(`${collection}__fts_${suffix}`);
  db.transaction(() => {
    // Start clean: a half-removed text index (table without triggers, or the
    // reverse) would otherwise block the rebuild or break every insert.
    for (const suffix of TRIGGER_SUFFIXES) db.exec(`DROP TRIGGER IF EXISTS ${trigger(suffix)}`);
    db.exec(`DROP TABLE IF EXISTS ${fts}`);
    db.exec(`CREATE VIRTUAL TABLE ${fts} USING fts5(body, content='', contentless_delete=1, tokenize='${TEXT_TOKENIZER}')`);
    // A deleted or updated document leaves a tombstone in the index. By default FTS5 rewrites a segment whole once a
    // tenth of its rows are tombstones, inside whichever write crossed that line (27-37 ms on the event loop at
    // 100,000 jobs); at 0 the store's tidy drops them in the background instead (text-tidy.ts, which also sets this
    // for a store made before; docs/archive.md, "The text index and deletions").
    db.exec(`INSERT INTO ${fts} (${fts}, rank) VALUES ('deletemerge', 0)`);
    db.exec(`INSERT INTO ${fts} (rowid, body) SELECT seq, ${col} FROM ${table} WHERE typeof(${col}) = 'text'`);
    db.exec(`CREATE TRIGGER ${trigger('ai')} AFTER INSERT ON ${table} WHEN typeof(new.${col}) = 'text' BEGIN
      INSERT INTO ${fts} (rowid, body) VALUES (new.seq, new.${col}); END`);
    db.exec(`CREATE TRIGGER ${trigger('ad')} AFTER DELETE ON ${table} BEGIN
      DELETE FROM ${fts} WHERE rowid = old.seq; END`);
    db.exec(textUpdateTrigger(collection, path));
  })();
}

/**
 * The text index follows a document's text when it changes, and only then: most updates (a job's progress) leave
 * it as it was, and rewriting its entry anyway cost a delete and an insert in FTS5 and left a tombstone each time.
 */
function textUpdateTrigger(collection: string, path: string): string {
  const fts = quoteIdent(ftsTable(collection));
  const col = quoteIdent(columnName(path));
  return `CREATE TRIGGER ${quoteIdent(`${collection}__fts_au`)} AFTER UPDATE OF doc ON ${quoteIdent(collection)} WHEN old.${col} IS NOT new.${col} BEGIN
      DELETE FROM ${fts} WHERE rowid = old.seq;
      INSERT INTO ${fts} (rowid, body) SELECT new.seq, new.${col} WHERE typeof(new.${col}) = 'text'; END`;
}

/** A store made before keeps its text index and gets this version's update trigger, which keeps the same entries. */
export function refreshTextTrigger(db: Database, spec: CollectionSpec): void {
  const text = spec.indexes.flatMap((ix) => keyParts(ix)).find(([, dir]) => dir === 'text');
  if (!text || !hasTextIndex(db, spec.name)) return;
  ensureTrigger(db, `${spec.name}__fts_au`, textUpdateTrigger(spec.name, text[0]));
}

/** Present only when the FTS table and all three triggers that keep it current exist. */
export function hasTextIndex(db: Database, collection: string): boolean {
  const names = [ftsTable(collection), ...TRIGGER_SUFFIXES.map((s) => `${collection}__fts_${s}`)];
  const found = db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name IN (SELECT value FROM json_each(?))`).get(JSON.stringify(names)) as { n: number };
  return found.n === names.length;
}

/** Secondary indexes on a table as SQLite reports them (automatic unique indexes excluded). */
export function listIndexes(db: Database, collection: string): Array<{ sqliteName: string; columns: Array<[string, 1 | -1]>; unique: boolean }> {
  const rows = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`)
    .all(collection) as Array<{ name: string }>;
  return rows.map(({ name }) => {
    const info = db.prepare(`SELECT name, desc, key FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno`).all(name) as Array<{ name: string | null; desc: number }>;
    const unique = (db.prepare(`SELECT "unique" AS u FROM pragma_index_list(?) WHERE name = ?`).get(collection, name) as { u: number } | undefined)?.u === 1;
    return { sqliteName: name, columns: info.map((c) => [c.name ?? '?', c.desc ? -1 : 1] as [string, 1 | -1]), unique };
  });
}

/**
 * An exact row count per collection, so the total of an unfiltered search is
 * one lookup instead of a scan of the smallest index. A trigger takes off
 * deleted rows; inserts are added once per transaction by the store's writer
 * (insert-counts.ts), and the per-row insert trigger of earlier versions is
 * dropped. A store written before the counter existed is counted once, on open.
 */
export function ensureRowCounter(db: Database, collection: string): void {
  db.exec(`CREATE TABLE IF NOT EXISTS _row_counts (collection TEXT PRIMARY KEY, n INTEGER NOT NULL)`);
  const table = quoteIdent(collection);
  const name = (suffix: string): string => quoteIdent(`${collection}__count_${suffix}`);
  const literal = quoteText(collection);
  // Counts so far are exact either way: the old trigger counted every insert up to this transaction.
  db.exec(`DROP TRIGGER IF EXISTS ${name('ai')}`);
  const present = db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'trigger' AND name = ?`).get(`${collection}__count_ad`) as { n: number };
  if (present.n === 1 && db.prepare(`SELECT 1 FROM _row_counts WHERE collection = ?`).get(collection)) return;
  db.transaction(() => {
    db.exec(`DROP TRIGGER IF EXISTS ${name('ad')}`);
    db.exec(`INSERT OR REPLACE INTO _row_counts (collection, n) SELECT ${literal}, count(*) FROM ${table}`);
    db.exec(`CREATE TRIGGER ${name('ad')} AFTER DELETE ON ${table} BEGIN UPDATE _row_counts SET n = n - 1 WHERE collection = ${literal}; END`);
  })();
}

/**
 * The change mark of a collection whose readers keep copies (CollectionSpec.changeMarked): a counter in the file,
 * moved by triggers inside every transaction that writes the collection, whichever connection or process writes it,
 * and by nothing else. The mark was `PRAGMA data_version`, which moves on every other connection's commit to any
 * table: with a second core on the same file, or `npm run archive` deleting jobs from cron, the workflow a start
 * names was read again at nearly every start.
 */
export function ensureChangeMark(db: Database, collection: string): void {
  db.exec(`CREATE TABLE IF NOT EXISTS _change_marks (collection TEXT PRIMARY KEY, n INTEGER NOT NULL)`);
  db.prepare(`INSERT OR IGNORE INTO _change_marks (collection, n) VALUES (?, 0)`).run(collection);
  const table = quoteIdent(collection);
  const literal = quoteText(collection);
  for (const [suffix, event] of [['ai', 'INSERT'], ['au', 'UPDATE'], ['ad', 'DELETE']] as const) {
    db.exec(`CREATE TRIGGER IF NOT EXISTS ${quoteIdent(`${collection}__mark_${suffix}`)} AFTER ${event} ON ${table} BEGIN
      UPDATE _change_marks SET n = n + 1 WHERE collection = ${literal}; END`);
  }
}
