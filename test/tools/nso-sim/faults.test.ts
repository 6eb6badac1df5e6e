/**
 * nso-sim's fault switch (slow answers, every request failing, connections
 * closed), its request log, reset() and close(), over real HTTP.
 */
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { startNsoSim } from '../../../tools/nso-sim/server.ts';
import type { NsoSim } from '../../../tools/nso-sim/server.ts';
import { JSON_HEADERS, JSON_TYPE, simCall } from '../../../tools/nso-sim/test-client.ts';
import { eventually } from '../../helpers/wait.ts';

let sim: NsoSim;
const get = (path: string, headers: Record<string, string> = { accept: JSON_TYPE }) => simCall(sim.url, 'GET', path, { headers });
const DEVICE = '/restconf/data/tailf-ncs:devices/device=ce0';

before(async () => {
  sim = await startNsoSim();
});
beforeEach(() => sim.reset());
after(() => sim.close());

type Errors = { 'ietf-restconf:errors': { error: { 'error-type': string; 'error-tag': string; 'error-message': string }[] } };

test('delayMs slows every answer by at least that long; reset() makes it fast again', async () => {
  sim.setFault({ delayMs: 150 });
  const started = performance.now();
  const res = await get(DEVICE);
  assert.equal(res.status, 200);
  assert.ok(performance.now() - started >= 140, 'answered after the delay');
  sim.reset();
  const fast = performance.now();
  await get(DEVICE);
  assert.ok(performance.now() - fast < 140, 'no delay after reset');
});

test('failStatus fails every request, any path and method, with an ietf-restconf:errors body', async () => {
  sim.setFault({ failStatus: 503 });
  for (const [method, path] of [['GET', DEVICE], ['POST', '/restconf/operations/tailf-ncs:devices/device=ce0/sync-from'], ['GET', '/api/running/devices'], ['DELETE', DEVICE]] as const) {
    const res = await simCall(sim.url, method, path, { headers: JSON_HEADERS });
    assert.equal(res.status, 503, `${method} ${path}`);
    const error = (res.json() as Errors)['ietf-restconf:errors'].error[0];
    assert.equal(error?.['error-tag'], 'resource-denied');
    assert.match(error?.['error-message'] ?? '', /fails with 503/);
  }
  const unauthenticated = await simCall(sim.url, 'GET', DEVICE, { auth: null, headers: { accept: JSON_TYPE } });
  assert.equal(unauthenticated.status, 503, 'the fault wins over authentication');
  assert.equal((await get(DEVICE)).status, 503, 'nothing was deleted either');
});

test('failStatus answers XML when the client did not ask for JSON, with the tag for the status', async () => {
  sim.setFault({ failStatus: 500 });
  const res = await get(DEVICE, {});
  assert.equal(res.status, 500);
  assert.equal(res.headers['content-type'], 'application/yang-data+xml');
  assert.match(res.text, /^<errors xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf"><error><error-type>application<\/error-type><error-tag>operation-failed<\/error-tag>/);
});

test('failStatus null clears only that fault; other fields keep their value', async () => {
  sim.setFault({ delayMs: 100 });
  sim.setFault({ failStatus: 409 });
  let started = performance.now();
  assert.equal((await get(DEVICE)).status, 409);
  assert.ok(performance.now() - started >= 90, 'the delay set earlier still applies');
  sim.setFault({ failStatus: null });
  started = performance.now();
  assert.equal((await get(DEVICE)).status, 200);
  assert.ok(performance.now() - started >= 90);
  sim.setFault({ delayMs: 0 });
});

test('refuse closes connections without an answer until it is switched off', async () => {
  sim.setFault({ refuse: true });
  await assert.rejects(get(DEVICE), (error: NodeJS.ErrnoException) => error.code === 'ECONNRESET' || /socket hang up/.test(error.message));
  assert.equal(sim.requests.length, 0, 'a refused connection records no request');
  sim.setFault({ refuse: false });
  assert.equal((await get(DEVICE)).status, 200);
});

test('refuse also drops a request that is waiting out a delay', async () => {
  sim.setFault({ delayMs: 300 });
  const arrived = sim.requests.length;
  const pending = get(DEVICE);
  // The simulator records a request as it arrives, before its delay.
  await eventually(() => sim.requests.length > arrived, { what: 'the request at the simulator' });
  sim.setFault({ refuse: true });
  await assert.rejects(pending);
});

test('setFault refuses values it cannot honour', () => {
  assert.throws(() => sim.setFault({ failStatus: 200 }), RangeError);
  assert.throws(() => sim.setFault({ failStatus: 600 }), RangeError);
  assert.throws(() => sim.setFault({ delayMs: -1 }), RangeError);
  assert.throws(() => sim.setFault({ delayMs: Number.NaN }), RangeError);
});

test('requests records method, path with query, headers and body of every request, unauthenticated ones too', async () => {
  await simCall(sim.url, 'PATCH', `${DEVICE}?rollback-id=true`, { headers: JSON_HEADERS, body: { device: [{ name: 'ce0', port: 1 }] } });
  await simCall(sim.url, 'GET', '/api/running/devices', { auth: null });
  assert.equal(sim.requests.length, 2);
  const [patch, anonymous] = sim.requests;
  assert.equal(patch?.method, 'PATCH');
  assert.equal(patch?.path, `${DEVICE}?rollback-id=true`);
  assert.equal(patch?.headers['content-type'], JSON_TYPE);
  assert.match(String(patch?.headers.authorization), /^Basic /);
  assert.deepEqual(JSON.parse(patch?.body ?? ''), { device: [{ name: 'ce0', port: 1 }] });
  assert.equal(anonymous?.path, '/api/running/devices');
  assert.equal(anonymous?.body, '');
});

test('reset() clears the log and restores the starting data', async () => {
  await simCall(sim.url, 'DELETE', DEVICE, { headers: JSON_HEADERS });
  assert.equal((await get(DEVICE)).status, 404);
  sim.reset();
  assert.equal(sim.requests.length, 0);
  assert.equal((await get(DEVICE)).status, 200);
});

test('a body over 1 MiB is 413', async () => {
  const res = await simCall(sim.url, 'PUT', `${DEVICE}/config`, { headers: JSON_HEADERS, body: JSON.stringify({ config: { blob: 'x'.repeat(1024 * 1024) } }) });
  assert.equal(res.status, 413);
  assert.equal((res.json() as Errors)['ietf-restconf:errors'].error[0]?.['error-tag'], 'too-big');
});

test('seed: false starts with no devices; close() stops serving and can be called twice', async () => {
  const empty = await startNsoSim({ seed: false });
  const list = await simCall(empty.url, 'GET', '/restconf/data/tailf-ncs:devices', { headers: { accept: JSON_TYPE } });
  assert.deepEqual(list.json(), { 'tailf-ncs:devices': {} });
  assert.equal((await simCall(empty.url, 'GET', '/restconf/data/tailf-ncs:devices/device', { headers: { accept: JSON_TYPE } })).status, 404);
  const created = await simCall(empty.url, 'POST', '/restconf/data/tailf-ncs:devices', { headers: JSON_HEADERS, body: { device: { name: 'only' } } });
  assert.equal(created.status, 201, 'the empty device list is still known to be a list');
  assert.match(String(created.headers.location), /\/device=only$/);
  await empty.close();
  await empty.close();
  await assert.rejects(simCall(empty.url, 'GET', '/restconf'));
});

test('close() does not wait for a request that is still being delayed', async () => {
  const slow = await startNsoSim();
  slow.setFault({ delayMs: 10_000 });
  const pending = simCall(slow.url, 'GET', '/restconf').catch((error: unknown) => error);
  await eventually(() => slow.requests.length > 0, { what: 'the request at the simulator' });
  const started = performance.now();
  await slow.close();
  assert.ok(performance.now() - started < 1000);
  assert.ok((await pending) instanceof Error, 'the waiting client sees its connection closed');
});
