/**
 * Audit records are buffered off the request path; a gateway stopped the
 * clean way writes them before it exits, so a restarted gateway still has
 * every record. Real processes.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { request } from '../helpers/core.ts';
import { crash, spawnCore, spawnService, stop } from '../helpers/process.ts';
import { GATEWAY_COLLECTIONS } from '../../gateway/src/audit/collection.ts';

const dir = mkdtempSync(join(tmpdir(), 'iap-audit-restart-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('audit records of a gateway stopped with SIGTERM are all there after it starts again', async () => {
  const env = { DATA_DIR: dir, ADMIN_PASSWORD: 'audit-restart-password' };
  // Both on their embedded files: the gateway's is read back after its restart.
  const core = await spawnCore(env);
  const auth = { authorization: `Basic ${Buffer.from('admin:audit-restart-password').toString('base64')}` };
  let gateway = await spawnService('gateway/src/main.ts', { ...env, PORT: '0', CORE_URL: core.url });
  try {
    for (let i = 0; i < 25; i += 1) {
      const res = await request(`${gateway.url}/workflow_engine/getJob/${'a'.repeat(23)}${i % 10}`, { headers: auth });
      assert.equal(res.status, 500, 'an unknown job is a legacy error, and still a recorded call');
    }
    await stop(gateway);
    gateway = await spawnService('gateway/src/main.ts', { ...env, PORT: '0', CORE_URL: core.url });
    // The restarted gateway ran on its embedded file (the gateway's default), which is what is read back here.
    const store = SqliteStore.open({ dataDir: dir, fileName: 'gateway.sqlite', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
    try {
      assert.equal(await store.collection('audit').count(null), 25);
    } finally {
      await store.close();
    }
  } finally {
    await crash(gateway);
    await crash(core);
  }
});
