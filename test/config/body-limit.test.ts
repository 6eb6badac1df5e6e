/**
 * `http.bodyLimit` is read once, by the loader, into `http.bodyLimitBytes`,
 * and the core's body parser and the gateway's pass-through stop at that byte.
 * Each used to read the text itself, with parsers that disagreed on a size
 * such as `2 kb` written with a non-breaking space (as pasted from a web
 * page): the config accepted it, the gateway read 2048 bytes and the core's
 * parser read 2 — every body but the smallest answered 413.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSize } from '../../config/size.ts';
import { loadConfig } from '../../config/load.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { openTestStore } from '../helpers/stores.ts';
import type { Store } from '../../kernel/store/types.ts';

const LIMIT = '2\u00a0kb';

test('sizes are read in bytes, a kb being 1024 bytes and fractions of a byte dropped', () => {
  const cases: Array<[string, number]> = [['512b', 512], ['1kb', 1024], ['1.5kb', 1536], ['1 MB', 1048576], ['2\tgb', 2 * 1024 ** 3], ['0.001kb', 1], [LIMIT, 2048]];
  for (const [text, bytes] of cases) assert.equal(parseSize(text), bytes, JSON.stringify(text));
  for (const text of ['', '1', 'mb', '1tb', '-1kb', ' 1kb', '1kb ', '1e3kb']) assert.throws(() => parseSize(text), /not a size like 512kb or 1mb/, JSON.stringify(text));
});

test('the loader gives http.bodyLimitBytes with the text, and refuses a size it could not read', async () => {
  assert.equal((await loadConfig({ env: { HTTP_BODY_LIMIT: LIMIT } })).http.bodyLimitBytes, 2048);
  assert.equal((await loadConfig({ env: { HTTP_BODY_LIMIT: '0.5mb' } })).http.bodyLimitBytes, 524288);
  await assert.rejects(loadConfig({ env: { HTTP_BODY_LIMIT: '1tb' } }), /config: http\.bodyLimit \(HTTP_BODY_LIMIT\) must be a size like 512kb or 1mb/);
});

let store: Store;
let core: RunningCore;
let gateway: RunningGateway;
before(async () => {
  store = await openTestStore();
  core = await startCore(store, { HTTP_BODY_LIMIT: LIMIT });
  gateway = await startGateway(core.url, { HTTP_BODY_LIMIT: LIMIT });
});
after(async () => {
  await gateway?.close();
  await core?.close();
  await store?.close();
});

/** A login body of exactly `bytes` bytes of JSON (a wrong password, then blanks). */
function loginBody(bytes: number): string {
  const frame = JSON.stringify({ user: { username: 'nobody', password: 'wrong' } });
  const body = frame + ' '.repeat(bytes - frame.length);
  assert.equal(Buffer.byteLength(body), bytes);
  return body;
}

async function login(base: string, bytes: number): Promise<number> {
  const res = await fetch(`${base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: loginBody(bytes) });
  await res.arrayBuffer();
  return res.status;
}

test('the core and the gateway both take a body of exactly the limit and refuse one byte more', async () => {
  for (const [who, base] of [['core', core.url], ['gateway', gateway.url]] as const) {
    assert.equal(await login(base, 2048), 401, `${who}: 2048 bytes is within the limit (a wrong password, not 413)`);
    assert.equal(await login(base, 2049), 413, `${who}: 2049 bytes is over it`);
  }
});

test("a legacy operation reads the same limit in bytes: exactly the limit is served, one byte more is 413", async () => {
  const find = async (bytes: number): Promise<number> => {
    const frame = JSON.stringify({ query: {}, options: { limit: 1 } });
    const res = await fetch(`${gateway.url}/workflow_engine/jobs/find`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${core.adminToken}` }, body: frame + ' '.repeat(bytes - frame.length) });
    await res.arrayBuffer();
    return res.status;
  };
  assert.equal(await find(2048), 200, 'the limit itself is within it');
  assert.equal(await find(2049), 413, 'one byte more is over it');
});
