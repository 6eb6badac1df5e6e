/**
 * The gateway's audit store is its own (GATEWAY_MONGO_URL, else
 * gateway.sqlite under DATA_DIR), never the database MONGO_URL names: in
 * front of a real platform that setting may name the platform's database
 * (docs/real-platform.md, "The audit store").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crash, spawnService } from '../helpers/process.ts';

test('with MONGO_URL naming another database and no GATEWAY_MONGO_URL, the gateway keeps its audit in its own file and never connects there', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-own-store-'));
  // A database nobody answers for: a gateway that tried to use it would fail to start within half a second.
  const platformDb = 'mongodb://127.0.0.1:1/pronghorn?serverSelectionTimeoutMS=500&connectTimeoutMS=500';
  const gw = await spawnService('gateway/src/main.ts', { PORT: '0', GATEWAY_HOST: '127.0.0.1', DATA_DIR: dataDir, MONGO_URL: platformDb, GATEWAY_MONGO_URL: '', CORE_URL: 'http://127.0.0.1:1' });
  try {
    assert.ok(existsSync(join(dataDir, 'gateway.sqlite')), 'the audit store is gateway.sqlite under DATA_DIR');
    assert.equal((await fetch(`${gw.url}/gateway/health/live`)).status, 200);
  } finally {
    await crash(gw);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
