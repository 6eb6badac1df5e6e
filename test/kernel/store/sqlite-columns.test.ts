/**
 * Generated columns only where an index needs one: a new table computes no
 * column nothing indexes at each insert, and a field without a column is
 * searched and sorted exactly as through the column a table made before has
 * (the same expression, read from `doc`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Condition, SortKey } from '../../../kernel/search/conditions.ts';
import { jobs as jobType, tasks as taskType } from '../../../kernel/search/fields.ts';
import type { DocType } from '../../../kernel/search/fields.ts';
import { searchedCollection } from '../../../kernel/store/collections.ts';
import { columnName, columnPaths, generatedPaths, jsonPath, quoteIdent } from '../../../kernel/store/sqlite/columns.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Doc } from '../../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

function generatedColumns(file: string, table: string): string[] {
  const raw = new Database(file, { readonly: true });
  try {
    return (raw.prepare(`SELECT name FROM pragma_table_xinfo(?) WHERE hidden > 1 ORDER BY name`).all(table) as Array<{ name: string }>).map((r) => r.name);
  } finally {
    raw.close();
  }
}

test('a new table has generated columns for its index keys only, not for every field the registry knows', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'iap-columns-'));
  try {
    const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await store.close();
    for (const type of [jobType, taskType]) {
      const wanted = generatedPaths(searchedCollection(type)).map(columnName).sort();
      assert.deepEqual(generatedColumns(join(dir, 'iap.sqlite'), type.collection), wanted);
      // The registry's unindexed fields (tasks' summary, jobs' created_by, ...) have no column of their own.
      assert.ok(columnPaths(searchedCollection(type)).length > wanted.length + 3, type.name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const BASE = Date.UTC(2026, 10, 27);
const SUMMARIES = ['Port turn-up', 'port audit', 'Backup', '', 'é', 42, null, undefined, true];

function taskDoc(i: number): Doc {
  const summary = SUMMARIES[i % SUMMARIES.length];
  return {
    _id: `01a21f30-0000-7000-8000-${String(i).padStart(12, '0')}`,
    name: ['makeData', 'query', 'evaluation'][i % 3],
    ...(summary === undefined ? {} : { summary }),
    status: i % 4 === 0 ? 'error' : 'complete',
    job: { _id: `6b0a0853aa2a6399116a${String(i % 7).padStart(4, '0')}`, task: `a${i % 10}`, name: 'wf' },
    metrics: { start_time: BASE + i * 1000, ...(i % 5 === 0 ? {} : { end_time: BASE + i * 1000 + (i % 11) * 37, run_time: (i % 11) * 37 + (i % 2 ? 0.5 : 0) }) },
  };
}

function jobDoc(i: number): Doc {
  return {
    _id: `6b0a0853aa2a6399116b${String(i).padStart(4, '0')}`,
    name: `wf ${i % 4}`,
    description: 'ten automatic tasks',
    status: 'complete',
    created_by: ['admin', 'Admin', 'ops', 'é'][i % 4],
    last_updated_by: i % 3 === 0 ? 'ops' : 'admin',
    metrics: { start_time: BASE + i * 1000, end_time: BASE + i * 1000 + (i % 13), user: `u${i % 3}`, progress: (i % 4) / 4 },
  };
}

function compare(type: DocType, path: string, op: 'eq' | 'gt' | 'gte' | 'lt' | 'lte', value: string | number): Condition {
  return { kind: 'compare', op, field: type.fields.get(path)!, value };
}

function match(type: DocType, path: string, mode: 'prefix' | 'suffix' | 'substring', text: string): Condition {
  return { kind: 'match', mode, field: type.fields.get(path)!, text };
}

function sortOn(type: DocType, path: string, direction: 1 | -1): SortKey[] {
  return [{ field: type.fields.get(path)!, direction }, { field: type.fields.get('_id')!, direction }];
}

test('fields without a column are filtered and sorted as through the column of a table made before', async () => {
  const dirs = [mkdtempSync(join(tmpdir(), 'iap-columns-new-')), mkdtempSync(join(tmpdir(), 'iap-columns-old-'))];
  try {
    const [fresh, before] = dirs.map((dir) => SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS }));
    // The table as earlier versions made it: a column for every scalar field of the registry.
    const raw = new Database(join(dirs[1]!, 'iap.sqlite'));
    for (const type of [jobType, taskType]) {
      const spec = searchedCollection(type);
      const present = new Set(generatedPaths(spec));
      for (const path of columnPaths(spec)) {
        if (present.has(path)) continue;
        raw.exec(`ALTER TABLE ${quoteIdent(type.collection)} ADD COLUMN ${quoteIdent(columnName(path))} GENERATED ALWAYS AS (json_extract(doc, '${jsonPath(path)}')) VIRTUAL`);
      }
    }
    raw.close();
    assert.ok(generatedColumns(join(dirs[1]!, 'iap.sqlite'), 'tasks').includes('f_summary'));
    for (const store of [fresh!, before!]) {
      await store.collection('tasks').insertMany(Array.from({ length: 60 }, (_, i) => taskDoc(i)));
      await store.collection('jobs').insertMany(Array.from({ length: 30 }, (_, i) => jobDoc(i)));
    }
    const queries: Array<[string, DocType, Condition | null, SortKey[]]> = [
      ['summary equals', taskType, compare(taskType, 'summary', 'eq', 'Backup'), sortOn(taskType, '_id', 1)],
      ['summary range', taskType, compare(taskType, 'summary', 'gte', 'P'), sortOn(taskType, 'summary', -1)],
      ['summary prefix', taskType, match(taskType, 'summary', 'prefix', 'port'), sortOn(taskType, 'summary', 1)],
      ['summary contains', taskType, match(taskType, 'summary', 'substring', 'rt'), sortOn(taskType, 'summary', 1)],
      ['run_time above', taskType, compare(taskType, 'metrics.run_time', 'gt', 100), sortOn(taskType, 'metrics.run_time', -1)],
      ['end_time before', taskType, compare(taskType, 'metrics.end_time', 'lt', BASE + 30_000), sortOn(taskType, 'metrics.end_time', 1)],
      ['in a list', taskType, { kind: 'in', field: taskType.fields.get('summary')!, values: ['é', 'Backup', 42] }, sortOn(taskType, 'name', 1)],
      ['created_by suffix', jobType, match(jobType, 'created_by', 'suffix', 'min'), sortOn(jobType, 'created_by', 1)],
      ['not ops', jobType, { kind: 'not', item: compare(jobType, 'last_updated_by', 'eq', 'ops') }, sortOn(jobType, 'created_by', -1)],
      ['all, by unindexed end time', jobType, null, sortOn(jobType, 'metrics.end_time', -1)],
    ];
    for (const [label, type, where, sort] of queries) {
      const page = async (store: SqliteStore) => {
        const found = await store.collection(type.collection).search({ where, sort, skip: 1, limit: 25 });
        return { ids: found.docs.map((d) => d['_id']), total: found.total };
      };
      const a = await page(fresh!);
      assert.ok(a.total > 0 || label === 'summary equals', `${label}: some documents match`);
      assert.deepEqual(a, await page(before!), label);
    }
    await fresh!.close();
    await before!.close();
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
});
