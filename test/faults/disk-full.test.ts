/**
 * DATA_DIR fills up (a small tmpfs, filled by another file), with the core
 * and the gateway on it as `npm start` lays them out. The core's writes
 * answer 507 STORE_FULL in their surface's shape, quickly; reads go on, also
 * with a token due for its periodic refresh; nothing acknowledged is lost and
 * the store file stays intact; once space is freed writes succeed again, in
 * the same process. Legacy calls through the gateway are answered all the
 * while, and their audit records are stored once there is room again.
 * The embedded store on purpose, whatever MONGO_URL says: it is its disk
 * that fills; MongoDB's out-of-space answer is mapped to the same 507 by
 * test/kernel/store/mongo-errors.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crash } from '../helpers/process.ts';
import { readJournal } from '../../gateway/src/audit/journal.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { tokenHash } from '../../core/src/auth/tokens.ts';
import { manual, workflow } from '../helpers/engine.ts';
import { ADMIN_PASSWORD, figure, login, quantile, timed } from './support.ts';
import { eventually } from '../helpers/wait.ts';
import type { Timed } from './support.ts';
import { spawnCoreOnTmpfs, spawnGatewayBeside, sqlInside, tmpfsUnavailable } from './tmpfs.ts';
import type { CoreOnTmpfs } from './tmpfs.ts';

const unavailable = tmpfsUnavailable();
let core: CoreOnTmpfs;
let gateway: CoreProcess;
let token: string;
before(async () => {
  if (unavailable) return;
  core = await spawnCoreOnTmpfs('24m', { ADMIN_PASSWORD });
  gateway = await spawnGatewayBeside(core, {});
  token = await login(core.url);
});
after(async () => {
  if (gateway) await crash(gateway);
  if (core) await crash(core);
});

const MANUAL = 'a1b2';
const WORKFLOW = workflow('fault-full', { [MANUAL]: manual() }, [['workflow_start', MANUAL], [MANUAL, 'workflow_end']], { description: 'waits for a person' });

/** Fills the file system of `dir` with one file until no byte fits; answers its path. */
function fill(dir: string): { path: string; bytes: number } {
  const path = join(dir, 'ballast');
  const fd = openSync(path, 'w');
  let bytes = 0;
  try {
    for (const size of [1 << 20, 4096, 1]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) bytes += writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return { path, bytes };
}

const integrity = (c: CoreOnTmpfs): unknown => sqlInside(c, 'iap.sqlite', 'PRAGMA integrity_check');

test('a full DATA_DIR: writes answer 507 STORE_FULL, reads go on, nothing acknowledged is lost, and writes work again once space is freed', { timeout: 40_000, skip: unavailable ?? false }, async () => {
  const url = core.url;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown) => timed(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const get = (path: string) => timed(`${url}${path}`, { headers });
  assert.equal((await post('/automation-studio/automations', { automation: WORKFLOW })).status, 200);
  const start = () => post('/operations-manager/jobs/start', { workflow: WORKFLOW.name, options: { description: 'd'.repeat(1000) } });

  /** Every acknowledged job and the status its last acknowledged write left it in. */
  const acknowledged = new Map<string, string>();
  for (let i = 0; i < 20; i += 1) {
    const res = await start();
    assert.equal(res.status, 200, JSON.stringify(res.body));
    acknowledged.set((res.body as { data: { _id: string } }).data._id, 'running');
  }
  const [first, second] = [...acknowledged.keys()];
  assert.equal((await post('/operations-manager/jobs/pause', { jobIds: [first] })).status, 200);
  acknowledged.set(first!, 'paused');

  // The token was last used a minute ago, as most are: reading with it refreshes its session, a write.
  const aged = sqlInside(core, 'iap.sqlite', `UPDATE sessions SET doc = jsonb_set(doc, '$.lastUsed', ?) WHERE id = ?`, [Date.now() - 60_000, tokenHash(token)]);
  assert.equal((aged as { changes: number }).changes, 1);

  // Empty the write-ahead log first. SQLite reuses a WAL file's pages from the start after each
  // checkpoint, so a WAL left large by earlier writes (the store's value counters write more per job)
  // holds room for many more commits however full the disk is, and the writes below would not meet it.
  sqlInside(core, 'iap.sqlite', 'PRAGMA wal_checkpoint(TRUNCATE)');
  const ballast = fill(core.dataDir);

  const writes: Timed[] = [];
  for (let i = 0; i < 20; i += 1) {
    const res = await start();
    writes.push(res);
    if (res.status === 200) acknowledged.set((res.body as { data: { _id: string } }).data._id, 'running');
  }
  writes.push(await post('/operations-manager/jobs/cancel', { jobIds: [second] }));
  writes.push(await post(`/operations-manager/jobs/${first}/tasks/${MANUAL}/finish`, { finish_state: 'success', variables: {} }));
  const refused = writes.filter((w) => w.status !== 200);
  assert.ok(refused.length >= 20, `writes are refused on a full disk (${refused.length} of ${writes.length})`);
  for (const w of refused) {
    assert.equal(w.status, 507, JSON.stringify(w.body));
    assert.equal(w.headers!.get('x-error-code'), 'STORE_FULL');
    assert.deepEqual(w.body, { message: "The store's disk is full; free space in its data directory and try again", data: null, metadata: {} });
    assert.ok(w.ms < 1000, `a refused write took ${w.ms.toFixed(0)} ms`);
  }

  const reads = [await get(`/operations-manager/jobs/${first}`), await get('/operations-manager/jobs?limit=5'), await get(`/operations-manager/tasks?equals[job._id]=${second}`), await get('/whoami')];
  assert.deepEqual(reads.map((r) => r.status), [200, 200, 200, 200], `reads go on: ${reads.map((r) => JSON.stringify(r.body).slice(0, 200)).join(' | ')}`);
  assert.equal((reads[0]!.body as { data: { status: string } }).data.status, 'paused', 'the refused finish changed nothing');
  assert.deepEqual(integrity(core), [{ integrity_check: 'ok' }], 'the store file is intact while the disk is full');

  unlinkSync(ballast.path);
  const again = await start();
  assert.equal(again.status, 200, `a write once space is freed, same process: ${JSON.stringify(again.body)}`);
  acknowledged.set((again.body as { data: { _id: string } }).data._id, 'running');
  assert.equal((await post('/operations-manager/jobs/cancel', { jobIds: [second] })).status, 200);
  acknowledged.set(second!, 'canceled');

  const ids = [...acknowledged.keys()];
  const page = await get(`/operations-manager/jobs?in[_id]=${ids.join(',')}&limit=100&include=_id,status`);
  const status = new Map((page.body as { data: Array<{ _id: string; status: string }> }).data.map((d) => [d._id, d.status]));
  assert.deepEqual(ids.filter((id) => status.get(id) !== acknowledged.get(id)).map((id) => `${id}: ${status.get(id) ?? 'missing'}, acknowledged ${acknowledged.get(id)}`), [], 'every acknowledged write is there');
  assert.deepEqual(integrity(core), [{ integrity_check: 'ok' }]);
  assert.equal(core.child.exitCode ?? core.child.signalCode, null, 'the same core process throughout');
  figure('disk full', `${(ballast.bytes / 2 ** 20).toFixed(1)} MiB of ballast filled a 24 MiB tmpfs; ${refused.length} of ${writes.length} writes answered 507 STORE_FULL (median ${quantile(refused.map((w) => w.ms), 0.5).toFixed(1)} ms); 4 reads 200; ${acknowledged.size} acknowledged jobs all there; integrity_check ok while full and after; writes 200 again once space was freed, same process`);
});

test('a full DATA_DIR: legacy calls through the gateway are answered, and their audit records are stored once there is room', { timeout: 30_000, skip: unavailable ?? false }, async () => {
  const legacy = (userAgent: string) => timed(`${gateway.url}/user-management/roles?limit=1`, { headers: { authorization: `Bearer ${token}`, 'user-agent': userAgent } });
  const answered: string[] = [];
  for (let i = 0; i < 5; i += 1) {
    assert.equal((await legacy(`before-full/${i}`)).status, 200);
    answered.push(`before-full/${i}`);
  }
  const ballast = fill(core.dataDir);
  gateway.log.length = 0;
  for (let i = 0; i < 20; i += 1) {
    const res = await legacy(`while-full/${i}`);
    assert.equal(res.status, 200, `a legacy read is answered on a full disk: ${JSON.stringify(res.body)}`);
    answered.push(`while-full/${i}`);
  }
  // Batches are tried every tenth of a second; they cannot be written now. Three failed tries, then judge the log.
  const tries = (): number => gateway.log.join('').match(/audit records not written; kept for the next attempt/g)?.length ?? 0;
  await eventually(() => tries() >= 3, { timeoutMs: 10_000, what: 'three failed tries to store the audit batches' }).catch(() => undefined);
  const logged = gateway.log.join('');
  assert.equal(logged.match(/audit journal not written/g)?.length, 1, `the journal's failure is logged, once: ${logged}`);
  assert.match(logged, /audit records not written; kept for the next attempt/);
  unlinkSync(ballast.path);
  // The report route stores what is waiting before it reads.
  const report = await timed(`${gateway.url}/gateway/audit/report?format=json`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(report.status, 200, JSON.stringify(report.body));
  const rows = sqlInside(core, 'gateway.sqlite', `SELECT json_extract(doc, '$.client.userAgent') AS ua, count(*) AS n FROM audit GROUP BY ua`) as Array<{ ua: string; n: number }>;
  const stored = new Map(rows.map((r) => [r.ua, r.n]));
  assert.deepEqual(answered.filter((ua) => stored.get(ua) !== 1), [], 'every answered call has its record, once');
  assert.deepEqual(sqlInside(core, 'gateway.sqlite', 'PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
  assert.deepEqual(readJournal(join(core.dataDir, 'gateway-audit.jsonl')), [], 'the journal is cut down once the records are stored');
  figure('disk full, gateway', `${answered.length - 5} legacy calls answered 200 on the full disk; their records were stored once space was freed; gateway.sqlite integrity_check ok`);
});
