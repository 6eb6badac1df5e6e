/**
 * The contract check (test/contract/check-answers.ts) on answers recorded
 * the way the suites record theirs: real answers of a core and a gateway
 * pass, and an answer that drifts from the document fails it: a field
 * renamed (in an envelope, in the data of an operations-manager answer, in
 * a module's own answer), a status the operation does not list, a content
 * type it does not give, an operation the document does not hold.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TappedAnswer } from '../../kernel/http/observe-answers.ts';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { loadConfig } from '../../config/load.ts';
import { buildDocuments } from '../../scripts/openapi-documents.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { AnswerChecker, recordedAnswers } from './check-answers.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';

const dir = mkdtempSync(join(tmpdir(), 'iap-contract-test-'));
let core: RunningCore;
let gw: RunningGateway;
let checker: AnswerChecker;
let answers: TappedAnswer[];

before(async () => {
  // This file's own recording, whatever the run around it records.
  process.env['CONTRACT_RECORD_DIR'] = dir;
  core = await startCore(SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }));
  gw = await startGateway(core.url);
  const auth = { authorization: `Bearer ${core.adminToken}` };
  const calls: Array<[string, string, RequestInit?]> = [
    [core.url, '/operations-manager/jobs?limit=5'],
    [core.url, '/operations-manager/jobs?limit=5000'],
    [core.url, '/operations-manager/jobs/0000000000000000000000a1'],
    [core.url, '/whoami'],
    [core.url, '/health/server'],
    [core.url, '/metrics'],
    [core.url, '/openapi.json'],
    [core.url, '/operations-manager/automations', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"name":"Contract drift"}' }],
    [gw.url, '/workflow_engine/getJobDeep/0000000000000000000000a1'],
    [gw.url, '/workflow_engine/jobs/find', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' }],
    [gw.url, '/metrics'],
    [gw.url, '/gateway/health/live'],
  ];
  for (const [base, path, init] of calls) await (await fetch(`${base}${path}`, init ?? { headers: auth })).arrayBuffer();
  await (await fetch(`${core.url}/whoami`)).arrayBuffer();
  checker = new AnswerChecker(buildDocuments(await loadConfig({ env: {} })));
  answers = [...recordedAnswers(dir)];
});
after(async () => {
  await gw.close();
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the answers of a real core and gateway are recorded and match the documents', () => {
  const result = checker.checkAll(answers);
  assert.deepEqual(result.problems, []);
  assert.ok(result.checked >= 12, `${result.checked} answers checked`);
  const seen = new Set(answers.map((a) => `${a.service} ${a.status} ${a.route}`));
  for (const expected of ['core 200 /operations-manager/jobs', 'core 400 /operations-manager/jobs', 'core 404 /operations-manager/jobs/:id', 'core 401 /whoami', 'gateway 410 /workflow_engine/getJobDeep/:job_id', 'gateway 200 /metrics']) {
    assert.ok(seen.has(expected), `recorded: ${expected}`);
  }
});

function one(service: string, status: number, route: string): TappedAnswer {
  const found = answers.find((a) => a.service === service && a.status === status && a.route === route);
  assert.ok(found, `${service} ${status} ${route} was recorded`);
  return found;
}

test('a field renamed in an answer fails the check', () => {
  const good = one('core', 200, '/operations-manager/jobs');
  const { message, ...rest } = good.body as Record<string, unknown>;
  const problem = checker.check({ ...good, body: { ...rest, msg: message } });
  assert.match(String(problem), /core GET \/operations-manager\/jobs 200: the body does not match the document/);
  const error = one('core', 401, '/whoami');
  const { code, ...others } = error.body as Record<string, unknown>;
  assert.match(String(checker.check({ ...error, body: { ...others, errorCode: code } })), /does not match/);
});

test("a field renamed inside an answer's declared shape fails the check: the data of an operations-manager answer and a module's own answer", () => {
  const created = one('core', 200, '/operations-manager/automations');
  assert.equal(checker.check(created), null);
  const envelope = created.body as { message: string; data: Record<string, unknown>; metadata: object };
  const { componentType, ...data } = envelope.data;
  assert.equal(componentType, 'workflows');
  assert.match(String(checker.check({ ...created, body: { ...envelope, data: { ...data, component_type: componentType } } })), /core POST \/operations-manager\/automations 200: the body does not match the document: \/data/);
  const server = one('core', 200, '/health/server');
  assert.equal(checker.check(server), null);
  const { release, ...rest } = server.body as Record<string, unknown>;
  assert.match(String(checker.check({ ...server, body: { ...rest, platformRelease: release } })), /core GET \/health\/server 200: the body does not match the document/);
  // The gateway's document describes the core operations it passes through with the same shapes.
  assert.match(String(checker.check({ ...server, service: 'gateway', body: { ...rest, platformRelease: release } })), /gateway GET \/health\/server 200: the body does not match the document/);
});

test('a status the operation does not list fails the check', () => {
  const good = one('core', 200, '/whoami');
  assert.match(String(checker.check({ ...good, status: 201 })), /status 201 is not documented/);
  const legacy = one('gateway', 410, '/workflow_engine/getJobDeep/:job_id');
  assert.match(String(checker.check({ ...legacy, status: 404 })), /status 404 is not documented/);
});

test('a content type or an operation the document does not hold fails the check', () => {
  const metrics = one('gateway', 200, '/metrics');
  assert.equal(checker.check(metrics), null);
  assert.match(String(checker.check({ ...metrics, contentType: 'application/json', body: {} })), /content type application\/json is not documented/);
  assert.match(String(checker.check({ ...metrics, route: '/metrics/extra' })), /no such operation/);
  assert.match(String(checker.check({ ...one('gateway', 410, '/workflow_engine/getJobDeep/:job_id'), body: { message: 'gone' } })), /does not match/);
});
