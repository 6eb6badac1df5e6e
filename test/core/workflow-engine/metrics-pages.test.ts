/**
 * The workflow metrics read workflows a page at a time (eachWorkflowPage):
 * every workflow is visited once, in the store's own name order, and no
 * page holds more than 200, whatever the names (case, accents, astral
 * characters, digits) and however many there are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { newObjectId } from '../../../kernel/store/ids.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';
import { workflows as workflowType } from '../../../core/src/store/doc-types.ts';
import { eachWorkflowPage } from '../../../core/src/workflow-engine/metrics.ts';

test('every workflow once, in the store\'s name order, at most 200 a page', async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  try {
    const stems = ['a', 'B', 'é', '\u{1F600}', '10', '9', ' ', 'z\u0000'];
    const docs = Array.from({ length: 640 }, (_, i) => ({ _id: newObjectId(), name: `${stems[i % stems.length]}-${(i * 7919) % 640}`, type: 'automation', tasks: {}, transitions: {} }));
    await store.collection('workflows').insertMany(docs);
    const sort = [{ field: workflowType.fields.get('name')!, direction: 1 as const }, { field: workflowType.fields.get('_id')!, direction: 1 as const }];
    const expected = (await store.collection('workflows').search({ where: null, sort, skip: 0, limit: 1000 })).docs.map((d) => d['_id']);
    const seen: unknown[] = [];
    const pages: number[] = [];
    await eachWorkflowPage(store, (page) => {
      pages.push(page.length);
      seen.push(...page.map((d) => d['_id']));
    });
    assert.deepEqual(pages, [200, 200, 200, 40]);
    assert.deepEqual(seen, expected);
  } finally {
    await store.close();
  }
});

test('no workflows: nothing visited', async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  let visits = 0;
  await eachWorkflowPage(store, () => (visits += 1));
  assert.equal(visits, 0);
  await store.close();
});
