/**
 * A text search's total read from the text index's statistics (one word, no
 * other condition) equals the number of rows the index matches, through any
 * sequence of inserts, replacements, deletes and batches, for words that
 * stem, carry diacritics or split in two (those are counted by matching, as
 * before). The reference is FTS5's own MATCH, read on a second connection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { TEST_LIMITS } from '../../helpers/search-fixture.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const WORDS = ['upgrade', 'upgrades', 'Upgrading', 'router', 'routers', 'café', 'cafe', 'CAFÉ', 'e-mail', 'core-rtr-07', 'the', 'a', 'bgp', 'BGP'];
const SEARCHED = [...WORDS, 'upgraded', 'nothing', 'e', 'mail'];

type Op = { kind: 'insert' | 'replace' | 'delete'; slot: number; words: string[] } | { kind: 'batch'; slots: number[]; words: string[] };

const words = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 5 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom('insert' as const, 'replace' as const, 'delete' as const), slot: fc.nat(30), words }),
  fc.record({ kind: fc.constant('batch' as const), slots: fc.array(fc.nat(30), { maxLength: 8 }), words }),
);

const idOf = (slot: number): string => slot.toString(16).padStart(24, '0');
const job = (slot: number, text: string[]) => ({ _id: idOf(slot), name: `job ${slot}`, status: 'complete', ...(text.length > 0 ? { description: text.join(' ') } : {}) });

test('a one-word text total from the index statistics equals the index match count after any writes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'text-totals-'));
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        rmSync(join(dir, 'iap.sqlite'), { force: true });
        rmSync(join(dir, 'iap.sqlite-wal'), { force: true });
        rmSync(join(dir, 'iap.sqlite-shm'), { force: true });
        const store = SqliteStore.open({ dataDir: dir, countCacheEntries: 0, collections: CORE_COLLECTIONS });
        const reference = new Database(join(dir, 'iap.sqlite'), { readonly: true });
        try {
          const jobs = store.collection('jobs');
          const present = new Set<number>();
          for (const o of ops) {
            if (o.kind === 'batch') {
              const fresh = [...new Set(o.slots)].filter((s) => !present.has(s));
              await store.batch(fresh.map((s) => ({ op: 'insert' as const, collection: 'jobs', doc: job(s, o.words) })));
              fresh.forEach((s) => present.add(s));
            } else if (o.kind === 'insert' && !present.has(o.slot)) {
              await jobs.insertOne(job(o.slot, o.words));
              present.add(o.slot);
            } else if (o.kind === 'replace' && present.has(o.slot)) {
              await jobs.replaceOne(job(o.slot, o.words));
            } else if (o.kind === 'delete' && present.has(o.slot)) {
              await jobs.deleteOne(idOf(o.slot));
              present.delete(o.slot);
            }
          }
          for (const word of SEARCHED) {
            const { where } = parseSearch(jobType, `contains[description]=${encodeURIComponent(word)}`, TEST_LIMITS);
            const matched = (reference.prepare(`SELECT count(*) AS n FROM jobs__fts WHERE jobs__fts MATCH ?`).get(`("${word.replace(/"/g, '""')}")`) as { n: number }).n;
            assert.equal(await jobs.count(where), matched, `contains[description]=${word}`);
          }
        } finally {
          reference.close();
          await store.close();
        }
      }),
      { numRuns: 40 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
