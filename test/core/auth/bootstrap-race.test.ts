/**
 * Two cores started at the same moment on one empty store (a SQLite file,
 * or with MONGO_URL one MongoDB database) both run the first-start bootstrap:
 * both see no built-in roles, no admins group, no administrator, and both
 * insert them. Both must start, and the store must hold each of them once.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from '../../helpers/core.ts';
import { crash, spawnCore } from '../../helpers/process.ts';
import type { CoreProcess } from '../../helpers/process.ts';
import { storeEnv } from '../../helpers/stores.ts';

const PASSWORD = 'bootstrap-race-password';
const headers = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
const dirs: string[] = [];
const running: CoreProcess[] = [];
after(async () => {
  for (const p of running) await crash(p);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('two cores starting together on an empty store both start, with one admins group and one administrator', { timeout: 90_000 }, async () => {
  // A few rounds: the race is between two processes the test does not schedule.
  for (let round = 0; round < 3; round += 1) {
    const dir = mkdtempSync(join(tmpdir(), 'iap-bootstrap-race-'));
    dirs.push(dir);
    const env = { ...storeEnv(dir), ADMIN_PASSWORD: PASSWORD };
    const started = await Promise.allSettled([spawnCore(env), spawnCore(env)]);
    for (const s of started) if (s.status === 'fulfilled') running.push(s.value);
    const failed = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    assert.deepEqual(failed.map((f) => String(f.reason).slice(0, 2000)), [], `round ${round}: a core failed to start`);
    const [a, b] = started.map((s) => (s as PromiseFulfilledResult<CoreProcess>).value);
    for (const p of [a!, b!]) {
      const groups = await request(`${p.url}/authorization/groups?equals=admins&equalsField=name`, { headers });
      assert.equal(groups.status, 200, JSON.stringify(groups.body));
      assert.equal((groups.body as { total: number }).total, 1, JSON.stringify(groups.body));
      const accounts = await request(`${p.url}/authorization/accounts?equals=admin&equalsField=username`, { headers });
      assert.equal((accounts.body as { total: number }).total, 1, JSON.stringify(accounts.body));
    }
    for (const p of [a!, b!]) await crash(p);
    running.length = 0;
  }
});
