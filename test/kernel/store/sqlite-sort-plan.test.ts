/**
 * How SQLite executes each sort of jobs and tasks, read from EXPLAIN QUERY
 * PLAN of the page query the store runs: a sort the registry calls indexed
 * walks an index and sorts nothing; any other sort goes through SQLite's
 * sorter under the LIMIT, which keeps at most LIMIT + OFFSET rows (the window
 * parse-search bounds by search.maxUnindexedSortWindow).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { jobs as jobType, tasks as taskType } from '../../../kernel/search/fields.ts';
import { keyParts, searchedCollection, sortIsIndexed } from '../../../kernel/store/collections.ts';
import { columnName, generatedPaths } from '../../../kernel/store/sqlite/columns.ts';
import { SqlCompiler } from '../../../kernel/store/sqlite/compile.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { jobs, tasks } from '../../fixtures/search-data.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

/** The search fixtures' jobs and tasks in a store file, and what SQLite plans for a query on it. */
async function withPlans(check: (plan: (sql: string) => string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'iap-sortplan-'));
  try {
    const store = SqliteStore.open({ dataDir: dir, collections: CORE_COLLECTIONS });
    await store.collection('jobs').insertMany(jobs);
    await store.collection('tasks').insertMany(tasks);
    await store.close();
    const raw = new Database(join(dir, 'iap.sqlite'), { readonly: true });
    try {
      check((sql) => (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((r) => r.detail).join(' | '));
    } finally {
      raw.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('indexed sorts walk an index; the others use the bounded sorter, in both directions', async () => {
  await withPlans((planOf) => {
    let indexed = 0;
    for (const type of [jobType, taskType]) {
      const compiler = new SqlCompiler(type.collection, new Set(generatedPaths(searchedCollection(type))));
      const id = type.fields.get('_id')!;
      for (const field of type.fields.values()) {
        if (!field.sortable) continue;
        for (const direction of [1, -1] as const) {
          const sort = field === id ? [{ field, direction }] : [{ field, direction }, { field: id, direction }];
          const plan = planOf(`SELECT t.seq AS seq FROM "${type.collection}" AS t WHERE 1 ORDER BY ${compiler.orderBy(sort)} LIMIT 100 OFFSET 0`);
          if (sortIsIndexed(type, field.path)) {
            indexed += 1;
            assert.doesNotMatch(plan, /TEMP B-TREE/, `${type.name} ${field.path} ${direction}: ${plan}`);
            assert.match(plan, /USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY|SCAN t USING/, `${type.name} ${field.path}: ${plan}`);
          } else {
            assert.match(plan, /USE TEMP B-TREE FOR (LAST TERM OF |RIGHT PART OF )?ORDER BY/, `${type.name} ${field.path} ${direction}: ${plan}`);
          }
        }
      }
    }
    assert.ok(indexed >= 2 * 12, `expected the declared sort indexes to be used, saw ${indexed / 2}`);
  });
});

test('an equality on an index\'s first field then its declared order walks the index, in both directions', async () => {
  await withPlans((planOf) => {
    let walked = 0;
    for (const type of [jobType, taskType]) {
      for (const ix of searchedCollection(type).indexes) {
        const parts = keyParts(ix);
        // `status` then a sort field then `_id`: the searches it serves are `equals[status]` sorted on the second.
        if (parts.length !== 3 || parts[2]![0] !== '_id') continue;
        const [first, second] = [columnName(parts[0]![0]), columnName(parts[1]![0])];
        for (const dir of ['ASC', 'DESC']) {
          const plan = planOf(`SELECT t.seq AS seq FROM "${type.collection}" AS t WHERE "${first}" = 'running' ORDER BY "${second}" ${dir}, id ${dir} LIMIT 100`);
          assert.doesNotMatch(plan, /TEMP B-TREE/, `${type.name} ${ix.name} ${dir}: ${plan}`);
          assert.match(plan, new RegExp(`USING (COVERING )?INDEX ${type.collection}\\.${ix.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `), `${type.name} ${ix.name} ${dir}: ${plan}`);
          walked += 1;
        }
      }
    }
    assert.ok(walked >= 6, `expected the jobs' and tasks' status indexes, walked ${walked}`);
  });
});
