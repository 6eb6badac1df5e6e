/**
 * Each service's store holds its own collections only. Both services are
 * started as `npm start` starts them, as processes on one data directory; the
 * gateway's file, once it has audited a legacy call, holds only the audit's
 * tables, and the core's file none of them (docs/architecture.md).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { spawnCore, spawnService, stop } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { ADMIN_PASSWORD, login, tempDir } from '../faults/support.ts';
import { GATEWAY_COLLECTIONS } from '../../gateway/src/audit/collection.ts';
import { CORE_COLLECTION_NAMES } from '../../core/src/store/collections.ts';

const data = tempDir('store-collections');
const procs: CoreProcess[] = [];
after(async () => {
  for (const p of procs) await stop(p);
  data.remove();
});

/** The tables of a SQLite file that hold documents: each collection's own, named as the collection. */
function tables(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>;
    return rows.map((r) => r.name);
  } finally {
    db.close();
  }
}

test("the gateway's store holds only the audit's tables, and the core's none of them", { timeout: 60_000 }, async () => {
  const core = await spawnCore({ DATA_DIR: data.path, ADMIN_PASSWORD });
  procs.push(core);
  const gateway = await spawnService('gateway/src/main.ts', { DATA_DIR: data.path, PORT: '0', CORE_URL: core.url });
  procs.push(gateway);
  const token = await login(core.url);
  const answer = await fetch(`${gateway.url}/workflow_engine/getJob/${'a'.repeat(24)}`, { headers: { authorization: `Bearer ${token}` } });
  await answer.arrayBuffer();
  await stop(gateway);
  await stop(core);

  const gatewayTables = tables(join(data.path, 'gateway.sqlite'));
  const own = new Set(GATEWAY_COLLECTIONS.map((c) => c.name));
  assert.deepEqual([...own].sort(), ['archive_state', 'audit']);
  for (const name of own) assert.ok(gatewayTables.includes(name), `gateway.sqlite has no ${name} table: ${gatewayTables.join(', ')}`);
  const foreign = gatewayTables.filter((t) => CORE_COLLECTION_NAMES.includes(t) && !own.has(t));
  assert.deepEqual(foreign, [], `gateway.sqlite holds core tables: ${foreign.join(', ')}`);
  // Whatever else is in the file is the store's bookkeeping (row and value counts, text index shadows), never a collection.
  const collections = gatewayTables.filter((t) => !t.startsWith('_') && !t.startsWith('sqlite_'));
  assert.deepEqual(collections.sort(), ['archive_state', 'audit']);

  const db = new Database(join(data.path, 'gateway.sqlite'), { readonly: true });
  try {
    assert.equal((db.prepare('SELECT count(*) AS n FROM audit').get() as { n: number }).n, 1, 'the legacy call was audited');
  } finally {
    db.close();
  }
  const coreTables = tables(join(data.path, 'iap.sqlite'));
  assert.ok(coreTables.includes('jobs'));
  assert.ok(!coreTables.includes('audit'), "the core's store has an audit table");
});
