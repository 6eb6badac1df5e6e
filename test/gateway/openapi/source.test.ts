/**
 * The gateway's document is made from the core's own, read from the core:
 * while the core cannot be reached `/openapi.json` is a 502 in the gateway's
 * error shape, and once it can be the document is there, without a restart;
 * a copy is kept for a minute and a failed read is never kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../kernel/errors.ts';
import type { OpenApiDocument } from '../../../kernel/openapi/document.ts';
import { documentSource } from '../../../gateway/src/openapi/source.ts';
import { request } from '../../helpers/core.ts';
import { startGateway } from '../../helpers/gateway.ts';

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
