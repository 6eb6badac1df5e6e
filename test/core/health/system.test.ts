/**
 * `GET /health/system` answers the host report in the real platform's shape
 * (docs/auth.md, "Health"), with the values Node's `os` module reads in this
 * same process as the oracle, needs credentials like `/health/server`, and
 * is reachable through the gateway's pass-through.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { arch, cpus, release, totalmem } from 'node:os';
import { openTestStore } from '../../helpers/stores.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { startGateway } from '../../helpers/gateway.ts';
import type { RunningGateway } from '../../helpers/gateway.ts';

let core: RunningCore;
let gw: RunningGateway;
before(async () => {
  core = await startCore((await openTestStore()));
  gw = await startGateway(core.url);
});
after(async () => {
  await gw.close();
  await core.close();
});

const isCount = (n: unknown): boolean => typeof n === 'number' && Number.isInteger(n) && n >= 0;

function assertSystemShape(body: unknown): void {
  const b = body as Record<string, unknown>;
  assert.deepEqual(Object.keys(b).sort(), ['arch', 'cpus', 'freemem', 'loadavg', 'release', 'totalmem', 'uptime']);
  assert.equal(b['arch'], arch());
  assert.equal(b['release'], release());
  assert.equal(b['totalmem'], totalmem());
  assert.ok(isCount(b['uptime']) && isCount(b['freemem']));
  assert.ok((b['freemem'] as number) <= (b['totalmem'] as number));
  assert.ok(Array.isArray(b['loadavg']) && b['loadavg'].length === 3 && b['loadavg'].every((n) => typeof n === 'number' && n >= 0));
  const reported = b['cpus'] as Array<{ model: string; speed: number; times: Record<string, number> }>;
  assert.equal(reported.length, cpus().length);
  reported.forEach((c, i) => {
    assert.equal(c.model, cpus()[i]!.model);
    assert.ok(isCount(c.speed));
    assert.deepEqual(Object.keys(c.times).sort(), ['idle', 'irq', 'nice', 'sys', 'user']);
    for (const v of Object.values(c.times)) assert.ok(isCount(v));
  });
}

test('GET /health/system answers the host report in the platform shape', async () => {
  const res = await core.request('/health/system');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assertSystemShape(res.body);
});

test('GET /health/system needs credentials, and takes every form like /health/server', async () => {
  for (const path of ['/health/server', '/health/system']) assert.equal((await request(`${core.url}${path}`)).status, 401, path);
  const basic = `Basic ${Buffer.from(`admin:${core.config.admin.password ?? ''}`).toString('base64')}`;
  const forms: Array<Record<string, string>> = [{ authorization: basic }, { cookie: `token=${core.adminToken}` }];
  for (const headers of forms) assert.equal((await request(`${core.url}/health/system`, { headers })).status, 200);
  assert.equal((await request(`${core.url}/health/system?token=${encodeURIComponent(JSON.stringify(core.adminToken))}`)).status, 200);
});

test('GET /health/system is reachable through the gateway', async () => {
  const res = await request(`${gw.url}/health/system`, { headers: { authorization: `Bearer ${core.adminToken}` } });
  assert.equal(res.status, 200);
  assertSystemShape(res.body);
  assert.equal((await request(`${gw.url}/health/system`)).status, 401);
});
