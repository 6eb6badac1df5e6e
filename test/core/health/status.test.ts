/**
 * `GET /health/status` over HTTP on the real core: public, as the platform's
 * load-balancer probe is; the platform's keys; `exclude-services` skips the
 * store check; 503 (not 200) when the store does not answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore, TEST_STORE } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';

let core: RunningCore;
before(async () => {
  core = await startCore(await openTestStore());
});
after(() => core.close());

test('answers without credentials, in the platform shape, with the store as a running service', async () => {
  const res = await core.request('/health/status', { token: null });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['adapters', 'apps', 'host', 'serverId', 'serverName', 'services', 'timestamp']);
  assert.match(body['serverId'] as string, /^[0-9a-f]{64}$/);
  assert.equal(body['serverName'], null);
  assert.deepEqual(body['services'], [{ service: TEST_STORE === 'mongodb' ? 'mongo' : 'sqlite', status: 'running' }]);
  assert.ok(Math.abs((body['timestamp'] as number) - Date.now()) < 60_000, 'timestamp is epoch milliseconds');
  assert.equal(body['apps'], 'running');
  assert.equal(body['adapters'], 'running');
});

test('exclude-services=true skips the downstream check; another value is a 400', async () => {
  const res = await core.request('/health/status?exclude-services=true', { token: null });
  assert.equal(res.status, 200);
  assert.deepEqual((res.body as { services: unknown[] }).services, []);
  assert.equal((await core.request('/health/status?exclude-services=maybe', { token: null })).status, 400);
  assert.equal((await core.request('/health/status?verbose=1', { token: null })).status, 400);
});

test('a store that does not answer makes the probe answer 503, which a load balancer reads as unhealthy', async () => {
  const store = await openTestStore();
  const broken = await startCore(store);
  try {
    const jobs = store.collection('jobs');
    const original = jobs.count.bind(jobs);
    // The store's own collection object: what the route asks; failing it is the store going away.
    (jobs as { count: typeof jobs.count }).count = async () => {
      throw new Error('store gone');
    };
    const res = await broken.request('/health/status', { token: null });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    (jobs as { count: typeof jobs.count }).count = original;
    assert.equal((await broken.request('/health/status', { token: null })).status, 200);
  } finally {
    await broken.close();
  }
});
