/** The indexing API over HTTP. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';

let core: RunningCore;
let store: Store;
before(async () => {
  store = await openTestStore();
  core = await startCore(store);
});
after(async () => {
  await core.close();
  await store.close();
});

test('GET /indexes/jobs/status answers missing, misnamed, external and indexed', async () => {
  const res = await core.request(`/indexes/jobs/status`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { missing: [], misnamed: [], external: [], indexed: true });
});

test('POST /indexes/tasks builds nothing when nothing is missing and reports the status', async () => {
  const res = await core.request(`/indexes/tasks`, { method: 'POST' });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { message: 'Built 0 index(es) of tasks', built: [], status: { missing: [], misnamed: [], external: [], indexed: true } });
});

test('GET /indexes lists the declared indexes of each collection', async () => {
  const res = await core.request(`/indexes`);
  const body = res.body as Record<string, { indexes: Array<{ name: string }> }>;
  assert.ok(body['jobs']!.indexes.some((i) => i.name === 'description_text'));
  assert.ok(body['accounts']!.indexes.length > 0);
});

for (const [method, path] of [['GET', '/indexes/nope/status'], ['POST', '/indexes/nope'], ['POST', '/indexes/__proto__']] as const) {
  test(`${method} ${path} is a 400 naming the collection`, async () => {
    const res = await core.request(`${path}`, { method });
    assert.equal(res.status, 400);
    const body = res.body as { code: string; details: Array<{ parameter: string }> };
    assert.equal(body.code, 'VALIDATION_FAILED');
    assert.deepEqual(body.details.map((d) => d.parameter), ['params.collectionName']);
  });
}
