/**
 * The exact total of a text search for one word, read from the text index's
 * own statistics instead of by counting its matches. FTS5 keeps, for every
 * term, how many rows hold it (the `fts5vocab` table's `doc`), with deleted
 * rows already taken off; a search for one word that the tokenizer turns into
 * one term matches exactly those rows. Reading that number walks the term's
 * list once without joining anything (about 0.8 ms for 60,000 rows against
 * 1.7 ms for counting the matches).
 *
 * Covered: a text search alone (no other condition), one word, no phrase, no
 * excluded word. Anything else is counted as before. The searched word is
 * split by the index's own tokenizer, on a scratch in-memory table, so the
 * term looked up is the one the index holds (`upgrades` → `upgrad`).
 */
import Database from 'better-sqlite3';
import type { Database as Db, Statement } from 'better-sqlite3';
import { splitText } from '../../search/conditions.ts';
import type { Condition } from '../../search/conditions.ts';
import { ftsTable, quoteIdent } from './columns.ts';
import { TEXT_TOKENIZER } from './schema.ts';

/** Words whose term is remembered; a word is a few bytes, so this bounds the map at well under a megabyte. */
const REMEMBERED_WORDS = 1000;

/** Splits words as the text index does, on a table of its own that nothing else sees. */
class Tokenizer {
  private readonly scratch: Db;
  private readonly insert: Statement;
  private readonly terms: Statement;
  private readonly clear: Statement;
  private readonly known = new Map<string, string | null>();

  constructor() {
    this.scratch = new Database(':memory:');
    this.scratch.exec(`CREATE VIRTUAL TABLE words USING fts5(body, tokenize='${TEXT_TOKENIZER}')`);
    this.scratch.exec(`CREATE VIRTUAL TABLE word_terms USING fts5vocab(words, 'instance')`);
    this.insert = this.scratch.prepare('INSERT INTO words (rowid, body) VALUES (1, ?)');
    this.terms = this.scratch.prepare('SELECT term FROM word_terms');
    this.clear = this.scratch.prepare('DELETE FROM words');
  }

  /** The one term the index holds for `word`, or null when it makes none or several. */
  termOf(word: string): string | null {
    if (this.known.has(word)) return this.known.get(word)!;
    const terms = this.scratch.transaction(() => {
      this.insert.run(word);
      const found = this.terms.all() as Array<{ term: string }>;
      this.clear.run();
      return found;
    })();
    const term = terms.length === 1 ? terms[0]!.term : null;
    if (this.known.size >= REMEMBERED_WORDS) this.known.delete(this.known.keys().next().value!);
    this.known.set(word, term);
    return term;
  }
}

export class TextTotals {
  private readonly tokenizer = new Tokenizer();
  private lookup: Statement | null = null;

  constructor(private readonly db: Db, private readonly collection: string) {}

  /** The statement reading a term's row count, on a vocabulary table kept in `temp` so the store's file never holds it. */
  private statement(): Statement | null {
    if (this.lookup) return this.lookup;
    const fts = ftsTable(this.collection);
    if (!this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(fts)) return null;
    const vocab = quoteIdent(`${fts}_terms`);
    this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${vocab} USING fts5vocab(main, ${quoteIdent(fts)}, 'row')`);
    this.lookup = this.db.prepare(`SELECT doc FROM temp.${vocab} WHERE term = ?`);
    return this.lookup;
  }

  /** The exact total, or null when the search's shape is not covered (or the store has no text index). */
  count(where: Condition | null): number | null {
    const { text, rest } = splitText(where);
    if (!text || rest) return null;
    const { terms, phrases, excluded } = text.query;
    if (terms.length !== 1 || phrases.length > 0 || excluded.length > 0) return null;
    const term = this.tokenizer.termOf(terms[0]!);
    if (term === null) return null;
    const lookup = this.statement();
    if (!lookup) return null;
    try {
      const row = lookup.get(term) as { doc: number } | undefined;
      return row ? row.doc : 0;
    } catch {
      // The text index was dropped (an index rebuild): count the usual way, and look the table up again next time.
      this.lookup = null;
      return null;
    }
  }
}
