/**
 * The front door (gateway/src/front-door/): every answer of the gateway,
 * whichever stage makes it, carries its request id and the headers every
 * answer carries, and every error answer its `X-Error-Code`. Proved over
 * every legacy operation of the mapping table, as the administrator, as an
 * anonymous caller, once removed, and with the core down; over the
 * pass-through, its alias and its own refusals; and over the gateway's own
 * routes in Koa.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ERROR_CODES } from '../../kernel/errors.ts';
import type { Entry } from '../../gateway/src/mapping/types.ts';
import { openTestStore } from '../helpers/stores.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';

const SECURITY: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' };

let core: RunningCore;
/** In front of the core at the configured release; at a release that removed everything; in front of nothing. */
let live: RunningGateway;
let removed: RunningGateway;
let dead: RunningGateway;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

before(async () => {
  core = await startCore(await openTestStore());
  live = await startGateway(core.url);
  removed = await startGateway(core.url, { PLATFORM_RELEASE: '2023.1' });
  dead = await startGateway(`http://127.0.0.1:${await closedPort()}`);
});
after(async () => {
  await dead.close();
  await removed.close();
  await live.close();
  await core.close();
});

interface Seen {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

async function call(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Seen> {
  const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, ...(body === undefined || method === 'GET' || method === 'HEAD' ? {} : { body }) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** What every answer carries, and every error answer besides; returns the error code, or null. */
function assertDoorHeaders(seen: Seen, what: string, requestId?: string): string | null {
  for (const [name, value] of Object.entries(SECURITY)) assert.equal(seen.headers.get(name), value, `${what}: ${name}`);
  const id = seen.headers.get('x-request-id');
  assert.ok(id !== null && id !== '', `${what}: X-Request-Id`);
  if (requestId !== undefined) assert.equal(id, requestId, `${what}: the caller's X-Request-Id`);
  // One value each, not the stage's and the handler's joined.
  assert.ok(!id.includes(','), `${what}: X-Request-Id written twice: ${id}`);
  assert.ok(!seen.headers.get('x-frame-options')!.includes(','), `${what}: X-Frame-Options written twice`);
  const code = seen.headers.get('x-error-code');
  if (seen.status < 400) return null;
  assert.ok(code !== null && Object.hasOwn(ERROR_CODES, code), `${what}: status ${seen.status} with X-Error-Code ${String(code)}: ${seen.text.slice(0, 200)}`);
  return code;
}

/** A concrete path for an entry's route: every parameter an id that names nothing. */
function pathOf(entry: Entry): string {
  return entry.legacy.path.replace(/:(\w+)/g, '0000000000000000000000a1');
}

function legacyEntries(): readonly Entry[] {
  const entries = live.gateway.entries;
  // Derived from the mapping table, never a hand list: a new operation is covered when it is mapped.
  assert.ok(entries.length > 100, `${entries.length} legacy operations`);
  return entries;
}

test('every legacy operation, as the administrator: every answer carries the door\'s headers, every error its code, in the legacy form', async () => {
  const auth = { authorization: `Bearer ${core.adminToken}` };
  let errors = 0;
  for (const entry of legacyEntries()) {
    const what = `${entry.legacy.method} ${entry.legacy.path}`;
    const seen = await call(live.url, entry.legacy.method, pathOf(entry), { ...auth, 'x-request-id': `door-${entry.id}` }, '{}');
    const code = assertDoorHeaders(seen, what, `door-${entry.id}`);
    assert.ok(seen.headers.get('deprecation') !== null, `${what}: Deprecation`);
    if (code !== null) {
      errors += 1;
      assert.equal(typeof JSON.parse(seen.text), 'string', `${what}: a legacy error is a JSON string`);
      assert.equal(seen.headers.get('cache-control'), 'no-store', `${what}: an error is not cached`);
    }
  }
  // Ids that name nothing: most operations refuse, so the error path is what this walks.
  assert.ok(errors > 20, `${errors} error answers`);
});

test('every legacy operation refuses an anonymous caller with 401 UNAUTHENTICATED, or 410 GONE once removed', async () => {
  for (const entry of legacyEntries()) {
    const what = `${entry.legacy.method} ${entry.legacy.path}`;
    const seen = await call(live.url, entry.legacy.method, pathOf(entry), {}, '{}');
    const code = assertDoorHeaders(seen, what);
    if (seen.status === 410) assert.equal(code, 'GONE', what);
    else {
      assert.equal(seen.status, 401, what);
      assert.equal(code, 'UNAUTHENTICATED', what);
    }
  }
});

test('every legacy operation, once removed, answers 410 with GONE and the message naming its replacement', async () => {
  for (const entry of legacyEntries()) {
    const what = `${entry.legacy.method} ${entry.legacy.path}`;
    const seen = await call(removed.url, entry.legacy.method, pathOf(entry), { authorization: `Bearer ${core.adminToken}` }, '{}');
    assert.equal(seen.status, 410, what);
    assert.equal(assertDoorHeaders(seen, what), 'GONE', what);
    assert.match(JSON.parse(seen.text) as string, new RegExp(`was removed in release ${entry.removed.replace('.', '\\.')}`), what);
  }
});

test('every legacy operation with the core down answers the legacy 500 with a code: UPSTREAM_FAILED when it needed the core', async () => {
  const codes = new Set<string>();
  for (const entry of legacyEntries()) {
    const what = `${entry.legacy.method} ${entry.legacy.path}`;
    const seen = await call(dead.url, entry.legacy.method, pathOf(entry), { authorization: 'Bearer some-token' }, '{}');
    if (seen.status === 410) continue;
    assert.equal(seen.status, 500, `${what}: ${seen.text}`);
    codes.add(assertDoorHeaders(seen, what)!);
  }
  assert.ok(codes.has('UPSTREAM_FAILED'), [...codes].join());
  assert.ok([...codes].every((c) => c === 'UPSTREAM_FAILED' || c === 'LEGACY_FAILED'), [...codes].join());
});

test('the pass-through and its alias: the core\'s answers and the gateway\'s own refusals carry the door\'s headers and a code', async () => {
  const auth = { authorization: `Bearer ${core.adminToken}` };
  const ok = await call(live.url, 'GET', '/operations-manager/jobs?limit=1', { ...auth, 'x-request-id': 'door-pass' });
  assert.equal(ok.status, 200);
  assertDoorHeaders(ok, 'pass-through 200', 'door-pass');
  const notFound = await call(live.url, 'GET', '/operations-manager/jobs/0000000000000000000000a1', auth);
  assert.equal(notFound.status, 404);
  assert.equal(assertDoorHeaders(notFound, 'pass-through 404'), 'NOT_FOUND');
  const anonymous = await call(live.url, 'GET', '/operations-manager/jobs');
  assert.equal(assertDoorHeaders(anonymous, 'pass-through 401'), 'UNAUTHENTICATED');
  const alias = await call(live.url, 'GET', '/nso_manager/adapters', auth);
  assertDoorHeaders(alias, `alias ${alias.status}`);
  // Refused by the gateway itself, before the core is asked.
  const tooLarge = await fetch(`${live.url}/operations-manager/automations`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: 'x'.repeat(2 * 1024 * 1024) });
  const large: Seen = { status: tooLarge.status, headers: tooLarge.headers, text: await tooLarge.text() };
  assert.equal(large.status, 413);
  assert.equal(assertDoorHeaders(large, 'pass-through 413'), 'PAYLOAD_TOO_LARGE');
  const down = await call(dead.url, 'GET', '/operations-manager/jobs', auth);
  assert.equal(down.status, 502);
  assert.equal(assertDoorHeaders(down, 'pass-through 502'), 'UPSTREAM_FAILED');
  assert.deepEqual(JSON.parse(down.text), { message: 'The core service is not reachable; try again shortly', data: null, metadata: {} });
});

test('the gateway\'s own routes in Koa carry the same headers, written once', async () => {
  const live200 = await call(dead.url, 'GET', '/gateway/health/live', { 'x-request-id': 'door-own' });
  assert.equal(live200.status, 200);
  assertDoorHeaders(live200, '/gateway/health/live', 'door-own');
  const refused = await call(live.url, 'POST', '/gateway/health/live', {}, '{}');
  assert.ok(refused.status >= 400, String(refused.status));
  assertDoorHeaders(refused, 'POST /gateway/health/live');
  const report = await call(live.url, 'GET', '/gateway/audit/report');
  assert.equal(report.status, 401);
  assert.equal(assertDoorHeaders(report, 'the audit report'), 'UNAUTHENTICATED');
});
