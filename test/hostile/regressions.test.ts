/**
 * Counterexamples the hostile-input fuzz suites found, kept as plain tests
 * of the behaviour that was fixed, against the real core (and gateway).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../helpers/stores.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import { errorShapeProblems } from './answers.ts';
import { send } from './wire.ts';
import type { HostileRequest } from './wire.ts';

let core: RunningCore;
before(async () => {
  core = await startCore((await openTestStore()));
});
after(() => core?.close());

const tokens = (): { admin: string; reader: string } => ({ admin: core.adminToken, reader: core.adminToken });
const admin = (method: string, pathname: string, query = ''): HostileRequest => ({ method, pathname, query, body: { kind: 'none' }, credential: { kind: 'admin' } });

test('a method a path does not take answers 405 METHOD_NOT_ALLOWED with Allow, in the surface shape, also for a method no route uses', async () => {
  for (const [req, shape] of [
    [admin('PUT', '/health/live'), 'plain'],
    [admin('DELETE', '/operations-manager/jobs'), 'operations-manager'],
    [admin('TRACE', '/health/live'), 'plain'],
  ] as const) {
    const answer = await send(core.url, req, tokens());
    assert.equal(answer.status, 405, `${req.method} ${req.pathname}: ${answer.text}`);
    assert.equal(answer.headers['x-error-code'], 'METHOD_NOT_ALLOWED');
    assert.deepEqual(errorShapeProblems(answer, shape, false), []);
    assert.match(String((answer.json as { message: string }).message), new RegExp(`^${req.method} is not allowed on ${req.pathname}; it takes HEAD, GET`));
    assert.equal(answer.headers['allow'], 'HEAD, GET');
  }
});

test('malformed percent-encoding in a query parameter answers 400 naming it, on routes without a query and on the automation and trigger lists', async () => {
  for (const [pathname, query, parameter, shape] of [
    ['/health/server', '%ZZ=1', '%ZZ', 'plain'],
    ['/operations-manager/automations', '%ZZ=1', '%ZZ', 'operations-manager'],
    ['/operations-manager/triggers', 'enabled=%ZZ', 'enabled', 'operations-manager'],
    ['/operations-manager/triggers', 'actionId=%E0%A4%A', 'actionId', 'operations-manager'],
  ] as const) {
    const answer = await send(core.url, admin('GET', pathname, query), tokens());
    assert.equal(answer.status, 400, `${pathname}?${query}: ${answer.text}`);
    assert.equal(answer.headers['x-error-code'], 'VALIDATION_FAILED');
    assert.deepEqual(errorShapeProblems(answer, shape, false), []);
    assert.equal((answer.json as { message: string }).message, `Invalid query: ${parameter} has malformed percent-encoding`);
  }
});

test('a body the parser refuses on the OAuth token route answers in the OAuth shape, not the plain one', async () => {
  for (const text of ['{"__proto__":{"polluted":true}}', '{bad', '"grant_type"']) {
    const answer = await send(core.url, { method: 'POST', pathname: '/oauth/token', query: '', body: { kind: 'text', text, contentType: 'application/json' }, credential: { kind: 'none' } }, tokens());
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.headers['x-error-code'], 'INVALID_JSON');
    assert.deepEqual(errorShapeProblems(answer, 'oauth', false), []);
    assert.equal((answer.json as { error: string }).error, 'invalid_request');
  }
});

test('a legacy operation refuses a body it cannot read before calling the core, instead of running on an empty body', async () => {
  const gateway = await startGateway(core.url);
  try {
    // `{` used to be read as {}: jobs/search then answered every job, and a list operation would have set the list to [].
    for (const text of ['{', '{"query":{"__proto__":{"$where":"1"}}}', '"a string"']) {
      const answer = await send(gateway.url, { method: 'POST', pathname: '/workflow_engine/jobs/search', query: '', body: { kind: 'text', text, contentType: 'application/json' }, credential: { kind: 'admin' } }, tokens());
      assert.equal(answer.status, 500, answer.text);
      assert.equal(answer.headers['x-error-code'], 'INVALID_JSON');
      assert.match(String(answer.json), /^Request body could not be read: /);
    }
    const huge = await send(gateway.url, { method: 'POST', pathname: '/workflow_engine/cancelJob', query: '', body: { kind: 'oversize', bytes: 1024 * 1024 + 16, chunked: false }, credential: { kind: 'admin' } }, tokens());
    assert.equal(huge.status, 413, huge.text);
    assert.equal(huge.headers['x-error-code'], 'PAYLOAD_TOO_LARGE');
    assert.equal(huge.json, 'Request body is too large');
  } finally {
    await gateway.close();
  }
});

test('a body nested deeper than 256 levels is refused as INVALID_JSON, directly and by a legacy operation, where it was an INTERNAL 500 (job start) or a RangeError', async () => {
  const deep = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
  const direct = await send(core.url, { method: 'POST', pathname: '/operations-manager/jobs/start', query: '', body: { kind: 'text', text: `{"workflow":"x","options":{"variables":{"x":${deep(3000)}}}}`, contentType: 'application/json' }, credential: { kind: 'admin' } }, tokens());
  assert.equal(direct.status, 400, direct.text);
  assert.equal(direct.headers['x-error-code'], 'INVALID_JSON');
  assert.deepEqual(errorShapeProblems(direct, 'operations-manager', false), []);
  // 253 levels inside the body's own object is still read.
  const shallow = await send(core.url, { method: 'POST', pathname: '/operations-manager/jobs/start', query: '', body: { kind: 'text', text: `{"workflow":"x","options":{"variables":{"x":${deep(250)}}}}`, contentType: 'application/json' }, credential: { kind: 'admin' } }, tokens());
  assert.equal(shallow.headers['x-error-code'], 'VALIDATION_FAILED', shallow.text);
  const gateway = await startGateway(core.url);
  try {
    const legacy = await send(gateway.url, { method: 'PUT', pathname: '/user-management/accounts/0000000000000000000000c1/groups', query: '', body: { kind: 'text', text: `${'['.repeat(5000)}${']'.repeat(5000)}`, contentType: 'application/json' }, credential: { kind: 'admin' } }, tokens());
    assert.equal(legacy.status, 500, legacy.text);
    assert.equal(legacy.headers['x-error-code'], 'INVALID_JSON');
    assert.equal(legacy.json, 'Request body is nested deeper than 256 levels');
  } finally {
    await gateway.close();
  }
});

test('a token parameter beside a valid Authorization header is the credential, not a parameter: the route answers (fuzz seed 247781316)', async () => {
  for (const query of ['token=%00', 'token=', 'tok%65n=x&limit=1']) {
    const answer = await send(core.url, admin('GET', '/transformations', query), tokens());
    assert.equal(answer.status, 200, `/transformations?${query}: ${answer.text}`);
  }
});
