/**
 * `npm run audit`: the report from an access log (what would break before
 * the gateway is in front) and from the gateway's SQLite audit store, run as
 * the operator runs it, in a child process.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../kernel/logger.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { AuditRecorder } from '../../../gateway/src/audit/recorder.ts';
import { legacyMatcher, outcomeOfStatus, readLogLine } from '../../../gateway/src/audit/report-log.ts';
import type { Entry } from '../../../gateway/src/mapping/types.ts';
import { GATEWAY_COLLECTIONS } from '../../../gateway/src/audit/collection.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'audit-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

interface Run { code: number | null; stdout: string; stderr: string }

function audit(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/audit.ts', ...args], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', PLATFORM_RELEASE: '2022.1', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

const GET_JOB = { operation: 'getJob', entry: 'workflow-engine.getJob', legacy: 'GET /workflow_engine/getJob/:job_id', replacement: 'GET /operations-manager/jobs/:id', deprecated: '2021.2', removed: '2022.2' };
const CANCEL = { operation: 'cancelJob', entry: 'workflow-engine.cancelJob', legacy: 'POST /workflow_engine/cancelJob', replacement: 'POST /operations-manager/jobs/cancel', deprecated: '2021.2', removed: '2022.2' };

const ENTRY: Entry = { id: 'we.getJob', operation: 'getJob', source: 'workflow-engine', legacy: { method: 'GET', path: '/workflow_engine/getJob/:job_id' }, deprecated: '2021.2', removed: '2022.2', replacement: null, steps: [{ answer: null }] };

test('access-log lines match legacy routes as the router does: any case, trailing slash, query string, one segment per parameter', () => {
  const match = legacyMatcher([ENTRY]);
  assert.equal(match('GET', '/workflow_engine/getJob/abc')?.id, 'we.getJob');
  assert.equal(match('get', '/Workflow_Engine/GETJOB/abc/?token=t#x')?.id, 'we.getJob');
  assert.equal(match('POST', '/workflow_engine/getJob/abc'), null, 'another method');
  assert.equal(match('GET', '/workflow_engine/getJob/abc/extra'), null);
  assert.equal(match('GET', '/workflow_engine/getJob/'), null, 'a parameter needs a value');
  assert.equal(match('GET', '/workflow_engineXgetJob/abc'), null);
});

test('an access-log line becomes a call, is ignored, or is named as unreadable', () => {
  const match = legacyMatcher([ENTRY]);
  const line = readLogLine('{"time":"2024-05-01T10:00:00+02:00","method":"GET","path":"/workflow_engine/getJob/1","status":410,"client":{"account":"alice","userAgent":"ua"}}', match);
  assert.deepEqual(line, { kind: 'call', call: { time: Date.parse('2024-05-01T08:00:00Z'), operation: 'getJob', entry: 'we.getJob', client: { account: 'alice', clientId: null, address: null, userAgent: 'ua' }, outcome: 'refused', deprecated: '2021.2', removed: '2022.2', replacement: null } });
  assert.deepEqual(readLogLine('{"method":"GET","path":"/health","status":200}', match), { kind: 'ignored' });
  assert.deepEqual(readLogLine('GET /x 200', match), { kind: 'invalid', reason: 'not JSON' });
  assert.deepEqual(readLogLine('{"method":"GET","path":"/workflow_engine/getJob/1"}', match), { kind: 'invalid', reason: 'status must be an HTTP status code' });
  assert.deepEqual(readLogLine('{"method":"GET","path":"/workflow_engine/getJob/1","status":200,"time":"soon"}', match).kind, 'invalid');
  assert.deepEqual(readLogLine('{"method":"GET","path":"/workflow_engine/getJob/1","status":200,"client":7}', match), { kind: 'invalid', reason: 'client must be a string or an object' });
  assert.deepEqual([200, 302, 404, 410, 500].map(outcomeOfStatus), ['rewritten', 'rewritten', 'failed', 'refused', 'failed']);
});

const LOG = [
  '{"time":"2024-05-01T08:00:00Z","method":"POST","path":"/workflow_engine/cancelJob","status":200,"client":{"account":"alice","userAgent":"nightly/1"}}',
  '{"time":"2024-05-01T09:30:00Z","method":"post","path":"/workflow_engine/cancelJob/","status":500,"client":{"account":"alice","userAgent":"nightly/1"}}',
  '{"time":1714557600000,"method":"GET","path":"/workflow_engine/getJob/abc123?token=secret","status":200,"client":"svc-reporting"}',
  '{"time":"2024-05-03T12:00:00Z","method":"GET","path":"/workflow_engine/getJob/def","status":410,"client":{"address":"10.9.8.7","userAgent":"curl/8.0"}}',
  '{"method":"GET","path":"/workflow_engine/getJob/ghi","status":200,"client":{"address":"10.9.8.7","userAgent":"curl/8.0"}}',
  '{"time":"2024-05-02T00:00:00Z","method":"GET","path":"/operations-manager/jobs","status":200}',
  '{"time":"2024-05-02T00:00:00Z","method":"GET","path":"/workflow_engine/cancelJob","status":200}',
  'not json at all',
  '{"time":"yesterday","method":"GET","path":"/workflow_engine/getJob/x","status":200}',
  '',
].join('\n');

test('--from-log: the report built offline from an access log, exact rows and series', async () => {
  const log = join(dir, 'access.jsonl');
  writeFileSync(log, LOG);
  const run = await audit(['--from-log', log, '--target', '2022.2', '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /access\.jsonl: 9 lines, 5 legacy calls, 2 other calls ignored, 2 unreadable/);
  assert.match(run.stderr, /line 8: not JSON/);
  assert.match(run.stderr, /line 9: time must be a date/);
  const report = JSON.parse(run.stdout) as { release: string; target: string; rows: unknown[]; series: unknown };
  assert.deepEqual([report.release, report.target], ['2022.1', '2022.2']);
  assert.deepEqual(report.rows, [
    { status: 'breaks at target', client: '10.9.8.7', clientKind: 'address', userAgents: ['curl/8.0'], ...GET_JOB, calls: 2, firstSeen: '2024-05-03T12:00:00.000Z', lastSeen: '2024-05-03T12:00:00.000Z', outcomes: { rewritten: 1, refused: 1, failed: 0 } },
    { status: 'breaks at target', client: 'alice', clientKind: 'account', userAgents: ['nightly/1'], ...CANCEL, calls: 2, firstSeen: '2024-05-01T08:00:00.000Z', lastSeen: '2024-05-01T09:30:00.000Z', outcomes: { rewritten: 1, refused: 0, failed: 1 } },
    { status: 'breaks at target', client: 'svc-reporting', clientKind: 'clientId', userAgents: [], ...GET_JOB, calls: 1, firstSeen: '2024-05-01T10:00:00.000Z', lastSeen: '2024-05-01T10:00:00.000Z', outcomes: { rewritten: 1, refused: 0, failed: 0 } },
  ]);
  assert.deepEqual(report.series, {
    bucket: 'day',
    buckets: ['2024-05-01T00:00:00.000Z', '2024-05-02T00:00:00.000Z', '2024-05-03T00:00:00.000Z'],
    operations: [{ operation: 'cancelJob', total: 2, counts: [2, 0, 0] }, { operation: 'getJob', total: 2, counts: [1, 0, 1] }],
  });
});

test('--from-log at a later release: the same calls are broken now, shown as an aligned text table', async () => {
  const log = join(dir, 'access.jsonl');
  writeFileSync(log, LOG);
  const run = await audit(['--from-log', log, '--target', '2023.1'], { PLATFORM_RELEASE: '2022.2' });
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split('\n');
  assert.equal(lines[0], 'Legacy API migration audit: release 2022.2, target 2023.1');
  assert.equal(lines[2], '3 clients calling 2 legacy operations (5 calls); 3 clients already broken, 0 clients with calls that break at 2023.1');
  const header = lines[4]!;
  assert.match(header, /^STATUS\s+CLIENT\s+USER AGENT\s+OPERATION\s+CALLS\s+FIRST SEEN\s+LAST SEEN\s+REWRITTEN\s+REFUSED\s+FAILED\s+DEPRECATED\s+REMOVED\s+REPLACEMENT$/);
  assert.match(lines[5]!, /^broken now\s+10\.9\.8\.7\s+curl\/8\.0\s+getJob\s+2\s+2024-05-03 12:00Z\s+2024-05-03 12:00Z\s+1\s+1\s+0\s+2021\.2\s+2022\.2\s+GET \/operations-manager\/jobs\/:id$/);
  assert.match(lines[6]!, /^broken now\s+alice\s+nightly\/1\s+cancelJob\s+2\s+2024-05-01 08:00Z\s+2024-05-01 09:30Z/);
  assert.match(lines[7]!, /^broken now\s+svc-reporting\s+-\s+getJob\s+1\s+2024-05-01 10:00Z/);
  // Aligned: every row's operation starts under OPERATION, and the right-aligned counts end under CALLS.
  const op = header.indexOf('OPERATION');
  const callsEnd = header.indexOf('CALLS') + 'CALLS'.length;
  for (const [line, operation, calls] of [[lines[5]!, 'getJob', '2'], [lines[6]!, 'cancelJob', '2'], [lines[7]!, 'getJob', '1']] as const) {
    assert.equal(line.slice(op, op + operation.length), operation);
    assert.equal(line.slice(callsEnd - 2, callsEnd), ` ${calls}`);
  }
  assert.equal(lines.length, 9, 'three rows and a final newline');
});

test('--data-dir: the report read from the gateway\'s SQLite audit store, as CSV, within since and until, written with --out', async () => {
  const data = join(dir, 'data');
  // The CLI's --data-dir reads the gateway's embedded file, so that is what the test writes.
  const store = SqliteStore.open({ dataDir: data, fileName: 'gateway.sqlite', countCacheEntries: 0, collections: GATEWAY_COLLECTIONS });
  const recorder = new AuditRecorder(store, createLogger({ level: 'error', service: 'test', silent: true }));
  const at = (iso: string) => Date.parse(iso);
  const base = { operation: 'getJob', entry: 'workflow-engine.getJob', source: 'workflow-engine', status: 200, latencyMs: 3, deprecated: '2021.2', removed: '2022.2', replacement: 'GET /operations-manager/jobs/:id' } as const;
  const bob = { account: 'bob', clientId: null, address: '10.0.0.2', userAgent: 'bob-script' };
  recorder.record({ ...base, time: at('2024-04-30T23:59:59.999Z'), client: bob, outcome: 'rewritten' });
  recorder.record({ ...base, time: at('2024-05-01T00:00:00Z'), client: bob, outcome: 'rewritten' });
  recorder.record({ ...base, time: at('2024-05-01T13:00:00Z'), client: bob, outcome: 'failed', status: 500 });
  recorder.record({ ...base, time: at('2024-05-02T00:00:00Z'), client: bob, outcome: 'rewritten' });
  await recorder.close();
  await store.close();
  const out = join(dir, 'report.csv');
  const run = await audit(['--data-dir', data, '--format', 'csv', '--since', '2024-05-01', '--until', '2024-05-02', '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, '');
  assert.equal(readFileSync(out, 'utf8'), [
    'status,client,client_kind,user_agents,operation,entry,legacy,calls,first_seen,last_seen,rewritten,refused,failed,replacement,deprecated,removed,history_begins',
    'breaks at target,bob,account,bob-script,getJob,workflow-engine.getJob,GET /workflow_engine/getJob/:job_id,2,2024-05-01T00:00:00.000Z,2024-05-01T13:00:00.000Z,1,0,1,GET /operations-manager/jobs/:id,2021.2,2022.2,',
    '',
  ].join('\r\n'));
});

test('bad arguments exit 2 with the usage; a missing store exits 1 without creating one', async () => {
  const cases = [['--target', '22'], ['--format', 'pdf'], ['--since', 'last week'], ['--bogus'], ['extra'], ['--from-log', join(dir, 'missing.jsonl')], ['--data-dir', dir, '--from-log', join(dir, 'access.jsonl')]];
  const runs = await Promise.all(cases.map((args) => audit(args)));
  for (const [i, run] of runs.entries()) {
    assert.equal(run.code, 2, `${cases[i]!.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, /usage: npm run audit --/);
    assert.equal(run.stdout, '');
  }
  const empty = join(dir, 'empty');
  const run = await audit(['--data-dir', empty]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /no audit store at .*empty\/gateway\.sqlite/);
  assert.throws(() => readFileSync(join(empty, 'gateway.sqlite')));
});
