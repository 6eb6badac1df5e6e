/**
 * The orchestrator stand-in turns slow, then failing, then drops connections,
 * then goes away altogether, and comes back, under a steady stream of relay
 * calls (single calls are covered by test/core/relay/relay-errors.test.ts).
 * Each phase's relay answers are the documented ones, name the adapter and
 * come quickly; the core's other routes answer as usual throughout; and relay
 * calls succeed again as soon as the orchestrator does.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNsoSim } from '../../tools/nso-sim/server.ts';
import type { NsoSim } from '../../tools/nso-sim/server.ts';
import { NSO, NSO_PASSWORD, NSO_USER, restAction, restQuery, startRelayFixture, TIMEOUT_MS, YANG_JSON } from '../core/relay/fixture.ts';
import type { RelayFixture } from '../core/relay/fixture.ts';
import { clients, figure, quantile } from './support.ts';
import { timingSleep } from '../helpers/wait.ts';

let f: RelayFixture;
let revived: NsoSim | null = null;
before(async () => {
  f = await startRelayFixture();
});
after(async () => {
  await revived?.close();
  await f.close();
});

const CE0 = '/restconf/data/tailf-ncs:devices/device=ce0';
const PHASE_MS = 700;

type Kind = 'query' | 'patch' | 'other';
interface Call {
  readonly kind: Kind;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly status: number;
  readonly code: string | null;
  readonly message: string;
  readonly tag: string | null;
}

test('under a stream of relay calls an orchestrator that is slow, failing, resetting and gone gets 504, its own error, and 502, quickly, naming the adapter; other routes are unaffected; calls succeed as soon as it is back', { timeout: 40_000 }, async () => {
  const calls: Call[] = [];
  const send = async (kind: Kind): Promise<void> => {
    const startedAt = performance.now();
    const res = kind === 'query'
      ? await restQuery(f.core, NSO, { params: { path: CE0, accept: YANG_JSON } })
      : kind === 'patch'
        ? await restAction(f.core, NSO, { params: { path: `${CE0}/config`, accept: YANG_JSON, method: 'PATCH' }, body: { config: { 'tailf-ned-cisco-ios:hostname': 'edge0' } } })
        : await f.core.request('/operations-manager/jobs?limit=1');
    const body = res.body as { message?: string; details?: Array<{ errorTag?: string | null }> };
    calls.push({ kind, startedAt, endedAt: performance.now(), status: res.status, code: res.headers.get('x-error-code'), message: body.message ?? '', tag: body.details?.[0]?.errorTag ?? null });
  };
  const kinds: Kind[] = ['query', 'query', 'patch', 'patch', 'other'];
  const traffic = clients(kinds.length, async (client) => {
    await send(kinds[client]!);
    await timingSleep(10, 'traffic: each client sends a call every 10 ms through every phase of the fault');
  });

  const phases: Array<{ name: string; from: number; to: number }> = [];
  const phase = async (name: string, enter: () => void | Promise<void>, ms = PHASE_MS): Promise<void> => {
    await enter();
    const from = performance.now();
    await timingSleep(ms, 'each fault phase lasts a given time, under traffic, to measure the answers during it');
    phases.push({ name, from, to: performance.now() });
  };
  const port = Number(new URL(f.sim.url).port);
  await phase('healthy', () => undefined);
  // Long enough for a few timed-out calls per client.
  await phase('slow', () => f.sim.setFault({ delayMs: TIMEOUT_MS * 3 }), 4 * TIMEOUT_MS);
  await phase('failing', () => f.sim.setFault({ delayMs: 0, failStatus: 503 }));
  await phase('resetting', () => f.sim.setFault({ failStatus: null, refuse: true }));
  await phase('gone', () => f.sim.close());
  let backAt = 0;
  await phase('back', async () => {
    revived = await startNsoSim({ port, username: NSO_USER, password: NSO_PASSWORD, seed: true });
    backAt = performance.now();
  });
  await traffic.stop();

  // Calls that started after a phase began (and its effect with it) and ended before the next one.
  const within = (name: string, kind: Kind): Call[] => {
    const p = phases.find((x) => x.name === name)!;
    return calls.filter((c) => c.kind === kind && c.startedAt >= p.from && c.endedAt <= p.to);
  };
  const expected: Record<string, { status: number; code: string | null; message: RegExp; tag?: string; boundMs: number }> = {
    healthy: { status: 200, code: null, message: /^$/, boundMs: 300 },
    slow: { status: 504, code: 'UPSTREAM_TIMEOUT', message: /^Adapter "Local NSO" did not answer within 400 ms/, boundMs: TIMEOUT_MS + 300 },
    failing: { status: 503, code: 'UPSTREAM_FAILED', message: /^Adapter "Local NSO" answered 503: nso-sim fault/, tag: 'resource-denied', boundMs: 500 },
    resetting: { status: 502, code: 'UPSTREAM_FAILED', message: /^Adapter "Local NSO" could not be reached/, boundMs: 500 },
    gone: { status: 502, code: 'UPSTREAM_FAILED', message: /^Adapter "Local NSO" could not be reached \(.*ECONNREFUSED/, boundMs: 500 },
  };
  for (const [name, want] of Object.entries(expected)) {
    for (const kind of ['query', 'patch'] as const) {
      const these = within(name, kind);
      assert.ok(these.length >= 3, `${kind} calls made while the orchestrator was ${name} (${these.length})`);
      for (const c of these) {
        assert.equal(c.status, want.status, `${kind} while ${name}: ${c.status} ${c.message}`);
        assert.equal(c.code, want.code);
        assert.match(c.message, want.message);
        if (want.tag) assert.equal(c.tag, want.tag, 'the orchestrator\'s error is passed back');
        assert.ok(c.endedAt - c.startedAt < want.boundMs, `${kind} while ${name} took ${(c.endedAt - c.startedAt).toFixed(0)} ms`);
      }
      figure(`orchestrator ${name} ${kind}`, `${these.length} calls, ${want.status}, median ${quantile(these.map((c) => c.endedAt - c.startedAt), 0.5).toFixed(1)} ms`);
    }
    const others = within(name, 'other');
    assert.ok(others.length >= 5, `other routes were called while the orchestrator was ${name}`);
    assert.deepEqual(others.filter((c) => c.status !== 200).map((c) => c.status), [], `other routes answer while the orchestrator is ${name}`);
    const slowest = Math.max(...others.map((c) => c.endedAt - c.startedAt));
    assert.ok(slowest < 300, `other routes stay quick while the orchestrator is ${name} (slowest ${slowest.toFixed(0)} ms)`);
    figure(`orchestrator ${name} other routes`, `${others.length} calls, all 200, median ${quantile(others.map((c) => c.endedAt - c.startedAt), 0.5).toFixed(1)} ms, slowest ${slowest.toFixed(0)} ms`);
  }

  for (const kind of ['query', 'patch'] as const) {
    const afterBack = calls.filter((c) => c.kind === kind && c.startedAt >= backAt);
    assert.ok(afterBack.length >= 5, `${kind} traffic went on after the orchestrator was back (${afterBack.length})`);
    assert.deepEqual(afterBack.filter((c) => c.status !== 200).map((c) => `${c.status} ${c.message}`), [], `every ${kind} sent once the orchestrator was back succeeds: no dead connection is reused`);
    const firstSuccess = Math.min(...calls.filter((c) => c.kind === kind && c.endedAt >= backAt && c.status === 200).map((c) => c.endedAt));
    figure(`orchestrator back ${kind}`, `first success ${(firstSuccess - backAt).toFixed(0)} ms after it listened again, then ${afterBack.length} calls all 200`);
  }
});
