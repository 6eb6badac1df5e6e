/**
 * The serving policy's keys as the config loader reads them (decision 31):
 * GATEWAY_SERVE_UNTIL for every operation, gateway.serveUntil.operations in
 * local.json per entry id. The loader checks the form; which ids exist and
 * whether a date is real, the gateway checks at start
 * (test/gateway/legacy/serve-until.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../config/load.ts';

async function dirWith(t: { after: (fn: () => Promise<void>) => void }, local: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'serve-until-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'local.json'), local);
  return dir;
}

async function problemsOf(promise: Promise<unknown>): Promise<readonly string[]> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.problems;
  }
  return assert.fail('the config should have been refused');
}

test('unset, the serving policy is the schedule: no common value and no per-operation ones', async () => {
  const config = await loadConfig({ env: {} });
  assert.deepEqual(config.gateway.serveUntil, { all: null, operations: {} });
});

test('GATEWAY_SERVE_UNTIL takes a release or an ISO date; local.json adds per-operation values beside it', async (t) => {
  const dir = await dirWith(t, JSON.stringify({ gateway: { serveUntil: { operations: { 'workflow-engine.getJob': '2024-06-30T12:00:00Z' } } } }));
  const config = await loadConfig({ env: { GATEWAY_SERVE_UNTIL: '2024.1' }, dir });
  assert.deepEqual(config.gateway.serveUntil, { all: '2024.1', operations: { 'workflow-engine.getJob': '2024-06-30T12:00:00Z' } });
  assert.equal((await loadConfig({ env: { GATEWAY_SERVE_UNTIL: '2024-06-30' } })).gateway.serveUntil.all, '2024-06-30');
});

test('attack: a date in a malformed form is refused at load, naming the key and where it came from', async (t) => {
  for (const bad of ['30/06/2024', 'next year', '2024.1.0', '1719705600000', '2024-6-30']) {
    const problems = await problemsOf(loadConfig({ env: { GATEWAY_SERVE_UNTIL: bad } }));
    assert.deepEqual(problems, ['config: gateway.serveUntil.all (GATEWAY_SERVE_UNTIL) must be a release like 2024.1 or an ISO date like 2024-06-30 (or 2024-06-30T12:00:00Z)'], bad);
  }
  const dir = await dirWith(t, JSON.stringify({ gateway: { serveUntil: { operations: { 'workflow-engine.getJob': 'forever' } } } }));
  assert.deepEqual(await problemsOf(loadConfig({ env: {}, dir })), ['config: gateway.serveUntil.operations.workflow-engine.getJob (in local.json) must be a release like 2024.1 or an ISO date like 2024-06-30 (or 2024-06-30T12:00:00Z)']);
});

test('attack: __proto__ among the per-operation values is refused, and no operation inherits a value through it', async (t) => {
  // Written as text: a JSON object literal in code would set the prototype instead of holding the key.
  const dir = await dirWith(t, '{"gateway": {"serveUntil": {"operations": {"__proto__": {"workflow-engine.getJob": "2030.1"}}}}}');
  const problems = await problemsOf(loadConfig({ env: {}, dir }));
  assert.ok(problems.includes('config: gateway.serveUntil.operations.__proto__ (in local.json) is not allowed'), problems.join('\n'));
  assert.equal(({} as Record<string, unknown>)['workflow-engine.getJob'], undefined, 'Object.prototype is untouched');
});
