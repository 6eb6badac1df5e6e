/**
 * The gateway is killed (SIGKILL) in the middle of a stream of legacy calls.
 * Every call it answered has its audit record once the gateway is started
 * again, exactly once: records still waiting for their batch were in the
 * journal, and the restarted gateway stores them. Real processes.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { crash, spawnCore, spawnService } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { ADMIN_PASSWORD, clients, figure, login, tempDir, timed, waitUntil } from './support.ts';
import { timingSleep } from '../helpers/wait.ts';
import { storeEnv } from '../helpers/stores.ts';
import { GATEWAY_COLLECTIONS } from '../../gateway/src/audit/collection.ts';

const coreData = tempDir('audit-kill-core');
const gatewayData = tempDir('audit-kill-gateway');
const procs: CoreProcess[] = [];
after(async () => {
  for (const p of procs) await crash(p);
  coreData.remove();
  gatewayData.remove();
});

/** The user agents of the stored audit records, each with how many records carry it. */
async function storedAgents(): Promise<Map<string, number>> {
  // The killed gateway ran on its embedded file (the gateway's default), which is what is read back here.
  const store = SqliteStore.open({ dataDir: gatewayData.path, fileName: 'gateway.sqlite', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
  try {
    const { docs } = await store.collection('audit').search({ where: null, sort: [], skip: 0, limit: 100_000 });
    const agents = new Map<string, number>();
    for (const d of docs) {
      const ua = (d['client'] as { userAgent: string }).userAgent;
      agents.set(ua, (agents.get(ua) ?? 0) + 1);
    }
    return agents;
  } finally {
    await store.close();
  }
}

test('a gateway killed mid-stream keeps the audit record of every legacy call it answered, once each', { timeout: 90_000 }, async () => {
  const core = await spawnCore({ ...storeEnv(coreData.path), ADMIN_PASSWORD });
  procs.push(core);
  const gatewayEnv = { DATA_DIR: gatewayData.path, PORT: '0', CORE_URL: core.url };
  let gateway = await spawnService('gateway/src/main.ts', gatewayEnv);
  procs.push(gateway);
  const token = await login(core.url);
  const answered: string[] = [];
  let sent = 0;
  let unanswered = 0;
  const calls = [
    // Rewritten, failed the legacy way, and refused (getJobDeep was removed in 2021.1): each outcome is recorded.
    (id: number) => `/user-management/roles?limit=1&n=${id}`,
    (id: number) => `/workflow_engine/getJob/${id.toString(16).padStart(24, '0')}`,
    (id: number) => `/workflow_engine/getJobDeep/${id.toString(16).padStart(24, '0')}`,
  ];
  const stream = (): ReturnType<typeof clients> =>
    clients(4, async (client, round) => {
      const id = sent++;
      const userAgent = `fault-audit/${attempt}/${client}/${round}`;
      const res = await timed(`${gateway.url}${calls[id % calls.length]!(id)}`, { headers: { authorization: `Bearer ${token}`, 'user-agent': userAgent }, timeoutMs: 5000 });
      if (res.status !== 0) answered.push(userAgent);
      else {
        unanswered += 1;
        await timingSleep(20, 'a client whose call found no gateway tries again shortly, as a script would');
      }
    });
  // Kill at a moment the test does not choose, somewhere between two batch flushes, once a fair stream is answered.
  // A kill that lands just after a flush, with nothing answered since, leaves nothing for the journal to restore and
  // proves nothing: the gateway is then started again on the same directory and killed again (the calls of every
  // attempt must end up stored, once each).
  let attempt = 0;
  let inStore = 0;
  let answeredAtKill = 0;
  let killAfterMs = 0;
  for (; attempt < 5; attempt += 1) {
    if (attempt > 0) {
      gateway = await spawnService('gateway/src/main.ts', gatewayEnv);
      procs.push(gateway);
    }
    const before = answered.length;
    const traffic = stream();
    const streamStart = performance.now();
    await waitUntil(() => answered.length - before >= 100, 15_000, '100 answered legacy calls');
    await timingSleep(Math.floor(Math.random() * 600), 'the kill comes at a moment the test does not choose');
    killAfterMs = Math.round(performance.now() - streamStart);
    await crash(gateway);
    await traffic.stop();
    answeredAtKill = answered.length;
    inStore = [...(await storedAgents()).values()].reduce((a, b) => a + b, 0);
    if (inStore < answeredAtKill) break;
  }
  assert.ok(inStore < answeredAtKill, `in ${attempt} kills, none left answered calls without a stored record (${inStore} stored of ${answeredAtKill}); otherwise this test proves nothing`);

  gateway = await spawnService('gateway/src/main.ts', gatewayEnv);
  procs.push(gateway);
  // The report route stores what is waiting before it reads.
  const report = await timed(`${gateway.url}/gateway/audit/report?format=json`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(report.status, 200, JSON.stringify(report.body));
  const stored = await storedAgents();
  const missing = answered.filter((ua) => !stored.has(ua));
  assert.deepEqual(missing, [], `every answered call has its record (${missing.length} of ${answered.length} missing)`);
  const twice = [...stored].filter(([, count]) => count > 1);
  assert.deepEqual(twice, [], 'no record is stored twice');
  figure('gateway kill', `killed ${killAfterMs} ms into the stream (attempt ${attempt + 1}): ${answered.length} calls answered, ${inStore} records in the store at the kill, ${answered.length - inStore} restored from the journal, ${stored.size} after restart (${unanswered} calls cut off by the kill)`);
});
