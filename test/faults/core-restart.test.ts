/**
 * The core is killed (SIGKILL) under a steady stream of calls through a real
 * gateway process, and started again on the same port and data directory.
 * During the outage every call gets a quick 502 in its surface's shape (a
 * legacy call, the legacy error string), none hangs and the gateway lives
 * on; once the core is back calls succeed with no manual step, so the
 * gateway's keep-alive pools hold no dead sockets.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { crash, spawnCore, spawnService } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { ADMIN_PASSWORD, clients, figure, login, quantile, tempDir, timed, waitUntil } from './support.ts';
import { timingSleep } from '../helpers/wait.ts';
import type { Timed } from './support.ts';
import { storeEnv } from '../helpers/stores.ts';

const data = tempDir('core-restart');
const procs: CoreProcess[] = [];
after(async () => {
  for (const p of procs) await crash(p);
  data.remove();
});

type Kind = 'new' | 'legacy';
interface Call extends Timed {
  readonly kind: Kind;
}

const OUTAGE_MS = 1500;
/** The bound on one answer while the core is down. */
const QUICK_MS = 1000;

test('a killed core: the gateway answers 502 at once in each surface\'s shape, and recovers by itself when the core is back', { timeout: 40_000 }, async () => {
  const env = { ...storeEnv(data.path), ADMIN_PASSWORD };
  let core = await spawnCore(env);
  procs.push(core);
  const corePort = new URL(core.url).port;
  const gateway = await spawnService('gateway/src/main.ts', { ...env, PORT: '0', CORE_URL: core.url, GATEWAY_TIMEOUT_MS: '10000' });
  procs.push(gateway);
  const token = await login(gateway.url);
  const headers = { authorization: `Bearer ${token}` };
  const paths: Record<Kind, string> = { new: '/operations-manager/jobs?limit=1', legacy: '/user-management/roles?limit=1' };

  const calls: Call[] = [];
  const traffic = clients(4, async (client) => {
    const kind: Kind = client % 2 === 0 ? 'new' : 'legacy';
    calls.push({ kind, ...(await timed(`${gateway.url}${paths[kind]}`, { headers, timeoutMs: 5000 })) });
    await timingSleep(5, 'traffic: each client sends a call every few ms, so the outage is met by a steady stream');
  });
  await waitUntil(() => calls.filter((c) => c.status === 200).length >= 40, 15_000, '40 calls through the gateway');
  const killedAt = performance.now();
  await crash(core);
  const goneAt = performance.now();
  await timingSleep(OUTAGE_MS, 'the fault is an outage of a given length: the gateway must serve on through it');
  const live = await timed(`${gateway.url}/gateway/health/live`);
  const restartAt = performance.now();
  core = await spawnCore({ ...env, CORE_PORT: corePort });
  procs.push(core);
  const upAt = performance.now();
  await timingSleep(800, 'traffic goes on for a while after the restart, to measure that calls succeed again');
  await traffic.stop();

  assert.equal(gateway.child.exitCode, null, 'the gateway is still running');
  assert.equal(live.status, 200, 'the gateway\'s own liveness answers during the outage');
  const noAnswer = calls.filter((c) => c.error !== null);
  assert.deepEqual(noAnswer.map((c) => c.error), [], 'every call got an answer: none hung, none was dropped');

  const before = calls.filter((c) => c.endedAt < killedAt);
  assert.ok(before.length >= 20, `traffic flowed before the kill (${before.length} calls)`);
  for (const c of before) assert.equal(c.status, 200, `${c.kind} before the kill: ${JSON.stringify(c.body)}`);

  const outage = calls.filter((c) => c.startedAt > goneAt && c.endedAt < restartAt);
  for (const kind of ['new', 'legacy'] as const) {
    const these = outage.filter((c) => c.kind === kind);
    assert.ok(these.length >= 20, `${kind} calls were made during the outage (${these.length})`);
    for (const c of these) {
      if (kind === 'new') {
        assert.equal(c.status, 502, JSON.stringify(c.body));
        assert.equal(c.headers!.get('x-error-code'), 'UPSTREAM_FAILED');
        assert.deepEqual(c.body, { message: 'The core service is not reachable; try again shortly', data: null, metadata: {} }, 'the operations-manager envelope');
      } else {
        assert.equal(c.status, 500, JSON.stringify(c.body));
        assert.equal(c.body, 'The core service is not reachable; try again shortly', 'the legacy error: a plain JSON string');
      }
      assert.ok(c.ms < QUICK_MS, `a ${kind} call took ${c.ms.toFixed(0)} ms during the outage`);
    }
    figure(`core-down ${kind} answers`, `${these.length} calls, median ${quantile(these.map((c) => c.ms), 0.5).toFixed(1)} ms, max ${Math.max(...these.map((c) => c.ms)).toFixed(1)} ms`);
  }

  // Calls under way at the kill either finished or failed the same way.
  for (const c of calls.filter((x) => x.startedAt <= goneAt && x.endedAt >= killedAt)) {
    assert.ok(c.status === 200 || c.status === (c.kind === 'new' ? 502 : 500), `a call under way at the kill answered ${c.status}`);
  }

  for (const kind of ['new', 'legacy'] as const) {
    const afterUp = calls.filter((c) => c.kind === kind && c.startedAt > upAt);
    assert.ok(afterUp.length >= 10, `${kind} traffic went on after the restart (${afterUp.length} calls)`);
    assert.deepEqual(afterUp.filter((c) => c.status !== 200).map((c) => `${c.status} ${JSON.stringify(c.body)}`), [], `every ${kind} call sent once the core listened again succeeds: no dead socket is reused, no manual step`);
    const firstSuccess = Math.min(...calls.filter((c) => c.kind === kind && c.endedAt > upAt && c.status === 200).map((c) => c.endedAt));
    figure(`core-back ${kind}`, `first success ${(firstSuccess - upAt).toFixed(0)} ms after the core listened (its restart took ${(upAt - restartAt).toFixed(0)} ms), then ${afterUp.length} calls all 200`);
  }
});
