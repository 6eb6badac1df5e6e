/** getClusterAdapters lists the gateway adapters of every core instance sharing the store. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';

test('two cores on one store each list both instances\' gateway adapters', async () => {
  const store = await openTestStore();
  const gateway = (name: string, port: number) => JSON.stringify([{ name, type: 'gateway', baseUrl: `http://127.0.0.1:${port}` }]);
  const a = await startCore(store, { CORE_PORT: '4101', ADAPTERS: gateway('iag east', 9101) });
  const b = await startCore(store, { CORE_PORT: '4102', ADAPTERS: gateway('iag west', 9102) });
  try {
    for (const core of [a, b]) {
      const res = await core.request('/ag-manager/getClusterAdapters');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const body = res.body as { results: Array<{ id: string; instance: string }>; total: number };
      assert.deepEqual(body.results.map((r) => [r.id, r.instance.split(':')[1]]), [['iag east', '4101'], ['iag west', '4102']]);
      assert.equal(body.total, 2);
    }
    // An instance not heard from for longer than the listing window drops out.
    const all = await store.collection('cluster').search({ where: null, sort: [], skip: 0, limit: 10 });
    const west = all.docs.find((d) => String(d['_id']).endsWith(':4102'))!;
    await store.collection('cluster').replaceOne({ ...west, lastSeen: Date.now() - 10 * 60_000 });
    const res = await a.request('/ag-manager/getClusterAdapters');
    assert.deepEqual((res.body as { results: Array<{ id: string }> }).results.map((r) => r.id), ['iag east']);
  } finally {
    await a.close();
    await b.close();
    await store.close();
  }
});
