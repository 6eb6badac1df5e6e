/**
 * The archiver in the background of the real services: two cores sharing a
 * store archive each finished job (and its tasks) once, the gateway archives
 * its audit records, and with retention off (the default) nothing moves.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { archiveDir } from '../../../kernel/archive/files.ts';
import { spawnCore, spawnService, stop } from '../../helpers/process.ts';
import type { CoreProcess } from '../../helpers/process.ts';
import { ADMIN_PASSWORD, tempDir } from '../../faults/support.ts';
import { eventually, timingSleep } from '../../helpers/wait.ts';
import { checkInvariant, runArchive, seedStore, storeContents } from './support.ts';

function waitUntilAsync(check: () => Promise<boolean>, ms: number, what: string): Promise<boolean> {
  return eventually(check, { timeoutMs: ms, everyMs: 250, what });
}

test('two cores and a gateway archive every due document exactly once, beside each other', { timeout: 180_000 }, async () => {
  const data = tempDir('archive-two-cores');
  const services: CoreProcess[] = [];
  try {
    const seeded = await seedStore(data.path, { jobs: 300, tasksPerJob: 3, audit: 400 });
    // Tiny batches, so the two cores' passes overlap for seconds.
    const env = { DATA_DIR: data.path, ADMIN_PASSWORD, RETENTION_JOB_DAYS: '30', RETENTION_AUDIT_DAYS: '30', RETENTION_POLL_MS: '200', RETENTION_BATCH_SIZE: '2', RETENTION_LEASE_MS: '2000' };
    // One after the other: the first core bootstraps the store (admin account, indexes) alone.
    const a = await spawnCore(env);
    services.push(a);
    services.push(await spawnCore(env));
    services.push(await spawnService('gateway/src/main.ts', { ...env, PORT: '0', CORE_URL: a.url }));
    const cleared = async (): Promise<boolean> => {
      const store = await storeContents(data.path);
      return [...seeded.due.keys()].every((k) => !store.has(k));
    };
    await waitUntilAsync(cleared, 120_000, 'every due document gone from the store');
    await Promise.all(services.map(stop));
    assert.equal(await checkInvariant(data.path, seeded), seeded.due.size);
    const store = await storeContents(data.path);
    for (const k of seeded.due.keys()) assert.ok(!store.has(k), `${k} still in the store`);
    const passes = services.flatMap((s) => s.log.join('').split('\n')).filter((l) => l.includes('archive:')).length;
    assert.ok(passes >= 2, 'the services log what they archived');
  } finally {
    await Promise.all(services.map(stop));
    data.remove();
  }
});

test('with retention off (the default) the services and npm run archive archive nothing', { timeout: 120_000 }, async () => {
  const data = tempDir('archive-off');
  const services: CoreProcess[] = [];
  try {
    const seeded = await seedStore(data.path, { jobs: 50, tasksPerJob: 2, audit: 60 });
    const env = { DATA_DIR: data.path, ADMIN_PASSWORD, RETENTION_POLL_MS: '100' };
    const core = await spawnCore(env);
    services.push(core);
    services.push(await spawnService('gateway/src/main.ts', { ...env, PORT: '0', CORE_URL: core.url }));
    await timingSleep(2_500, 'the services run in child processes on their own archive timers (RETENTION_POLL_MS 100): 25 polls in which an archiver that ignored retention off would have moved documents');
    await Promise.all(services.map(stop));
    const byHand = await runArchive([], { DATA_DIR: data.path });
    assert.equal(byHand.code, 0, byHand.stderr);
    assert.match(byHand.stdout, /jobs: retention off/);
    assert.match(byHand.stdout, /audit: retention off/);
    assert.ok(!existsSync(archiveDir(data.path)), 'no archive directory is created');
    const store = await storeContents(data.path);
    assert.equal(store.size, seeded.due.size + seeded.kept.size);
  } finally {
    await Promise.all(services.map(stop));
    data.remove();
  }
});
