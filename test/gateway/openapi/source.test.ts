/**
 * The gateway's document is made from its upstream's own, read from the
 * upstream (`/openapi.json`, else a platform's `/help/openapi`): while the
 * upstream cannot be reached `/openapi.json` is a 502 in the gateway's error
 * shape, and once it can be the document is there, without a restart; an
 * upstream that has neither gets the gateway's operations alone, saying so;
 * a copy is kept for a minute and a failed read is never kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../kernel/errors.ts';
import type { OpenApiDocument } from '../../../kernel/openapi/document.ts';
import { documentSource } from '../../../gateway/src/openapi/source.ts';
import { request } from '../../helpers/core.ts';
import { startGateway } from '../../helpers/gateway.ts';
import { startBehindPlatform } from '../../helpers/behind-platform.ts';
import { opensslMissing } from '../../../tools/platform-sim/tls.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const core = (title: string): OpenApiDocument => ({ openapi: '3.1.0', info: { title } } as unknown as OpenApiDocument);

test('a copy of the core document is kept for its age limit, then read again; concurrent readers share one read', async () => {
  let clock = 0;
  let reads = 0;
  const source = documentSource(async () => core(`core ${++reads}`), (c) => ({ ...c, info: { ...c.info, title: `gateway over ${c.info.title}` } }), 60_000, () => clock);
  const [a, b] = await Promise.all([source(), source()]);
  assert.equal(reads, 1);
  assert.equal(a, b);
  assert.match(a, /gateway over core 1/);
  clock = 59_999;
  assert.match(await source(), /gateway over core 1/);
  clock = 60_000;
  assert.match(await source(), /gateway over core 2/);
  assert.equal(reads, 2);
});

test('a failed read of the core document is not kept: the next request asks again', async () => {
  let up = false;
  const source = documentSource(async () => {
    if (!up) throw new AppError(502, 'UPSTREAM_FAILED', 'down');
    return core('core');
  }, (c) => c);
  await assert.rejects(source(), (err: unknown) => err instanceof AppError && err.status === 502);
  up = true;
  assert.match(await source(), /"title":"core"/);
});

test("a gateway whose core is down answers /openapi.json with a 502 in its own error shape, and other own routes still answer", async () => {
  const gw = await startGateway('http://127.0.0.1:1');
  try {
    const res = await request(`${gw.url}/openapi.json`);
    assert.equal(res.status, 502);
    const body = res.body as { code?: string; message?: string };
    assert.equal(body.code, 'UPSTREAM_FAILED');
    assert.match(String(body.message), /description could not be read/);
    assert.equal((await request(`${gw.url}/gateway/health/live`)).status, 200);
  } finally {
    await gw.close();
  }
});

test('in front of the platform stand-in, which serves no /openapi.json, the upstream operations come from its /help/openapi', { skip: opensslMissing() ?? false }, async () => {
  const env = await startBehindPlatform();
  const gw = await startGateway(env.sim.url, { CORE_CA_FILE: env.caFile });
  try {
    const res = await request(`${gw.url}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = res.body as OpenApiDocument;
    assert.match(doc.info.description, /GET \/help\/openapi/);
    assert.ok(doc.paths['/operations-manager/jobs'], 'an upstream operation');
    assert.ok(doc.paths['/workflow_engine/getJob/{jobId}'] ?? Object.keys(doc.paths).some((p) => p.startsWith('/workflow_engine/')), 'a legacy operation');
    assert.ok(doc.paths['/gateway/audit/report'], 'the gateway\'s own');
  } finally {
    await gw.close();
    await env.close();
  }
});

test('an upstream that describes itself nowhere: the gateway\'s own and legacy operations, saying the upstream\'s are left out', async () => {
  const bare = createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}'));
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const gw = await startGateway(`http://127.0.0.1:${(bare.address() as AddressInfo).port}`);
  try {
    const res = await request(`${gw.url}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = res.body as OpenApiDocument;
    assert.match(doc.info.description, /upstream describes none of its operations \(\/openapi\.json answered 404, \/help\/openapi answered 404\), so they are left out/);
    assert.ok(doc.paths['/gateway/audit/report']);
    assert.ok(Object.keys(doc.paths).some((p) => p.startsWith('/workflow_engine/')));
    assert.equal(doc.paths['/operations-manager/jobs'], undefined);
    assert.equal((await request(`${gw.url}/docs`)).status, 200);
  } finally {
    await gw.close();
    bare.closeAllConnections();
    bare.close();
  }
});
