/**
 * The mapping table checks itself: `npm run check-mappings` (the script run
 * as npm runs it) passes the table, and on an edited copy with a wrong
 * escape-hatch argument or template names each problem where it is; the
 * gateway refuses to start on the same copy with the same words.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGatewayApp, CALENDAR_FILE, MAPPINGS_DIR } from '../../../gateway/src/app.ts';
import { hatchRegistry } from '../../../gateway/src/mapping/hatches/index.ts';
import { loadMappings, MappingError } from '../../../gateway/src/mapping/load.ts';
import { createLogger } from '../../../kernel/logger.ts';
import { loadCalendar } from '../../../gateway/src/releases.ts';
import { testConfig } from '../../helpers/core.ts';
import { openTestStore } from '../../helpers/stores.ts';

const ROOT = new URL('../../..', import.meta.url).pathname;

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function checkMappings(...args: string[]): Run {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/check-mappings.ts', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

type Table = { entries: Array<{ id: string; steps: Array<Record<string, unknown>> }> };

/** The entry with this id in a fresh copy of its table file, and where it stands. */
function withEntry(table: Table, id: string): { index: number; last: Record<string, unknown> } {
  const index = table.entries.findIndex((e) => e.id === id);
  assert.ok(index >= 0, `no entry ${id}`);
  const steps = table.entries[index]!.steps;
  return { index, last: steps[steps.length - 1]! };
}

/** Faults planted in a copy of workflow-engine.json, with the located line each must produce. */
function faultyCopy(): { table: Table; expected: string[] } {
  const table = JSON.parse(readFileSync(join(MAPPINGS_DIR, 'workflow-engine.json'), 'utf8')) as Table;
  const expected: string[] = [];
  const claim = withEntry(table, 'workflow-engine.claimTask');
  (claim.last['with'] as Record<string, unknown>)['taskId'] = 42;
  expected.push(`entries[${claim.index}] (workflow-engine.claimTask).steps[0].with.taskId: must be string`);
  (claim.last['with'] as Record<string, unknown>)['owner'] = '{body.user}';
  expected.push(`entries[${claim.index}] (workflow-engine.claimTask).steps[0].with.owner: is not an argument of weClaimTask (it takes taskId, user)`);
  const watchers = withEntry(table, 'workflow-engine.addWatchers');
  delete (watchers.last['with'] as Record<string, unknown>)['watchers'];
  expected.push(`entries[${watchers.index}] (workflow-engine.addWatchers).steps[0].with.watchers: is required by weAddWatchers`);
  const find = withEntry(table, 'workflow-engine.find');
  (find.last['with'] as Record<string, unknown>)['answer'] = 'all';
  expected.push(`entries[${find.index}] (workflow-engine.find).steps[0].with.answer: must be one of list, results, first`);
  const iterations = withEntry(table, 'workflow-engine.getTaskIterations');
  (iterations.last['with'] as Record<string, unknown>)['task'] = '{params.taskId}';
  expected.push(`entries[${iterations.index}] (workflow-engine.getTaskIterations).steps[1].with.task: {params.taskId} names a path parameter the legacy path /workflow_engine/getTaskIterations/:job_id/:task_id does not have`);
  return { table, expected };
}

test('check-mappings passes the table as it is and says how many entries it checked', () => {
  const run = checkMappings();
  assert.equal(run.status, 0, run.stderr);
  const entries = loadMappings(MAPPINGS_DIR, loadCalendar(CALENDAR_FILE), hatchRegistry);
  const hatched = entries.filter((e) => e.steps.some((s) => 'code' in s)).length;
  assert.equal(run.stdout.trim(), `check-mappings: ${entries.length} entries valid (${entries.length - hatched} templates only, ${hatched} with an escape hatch)`);
  assert.equal(run.stderr, '');
});

test('check-mappings --file names every wrong hatch argument and template of an edited copy, located, and exits 1', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'check-mappings-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { table, expected } = faultyCopy();
  // Not named like a table file: which file it replaces is read from its entries' source.
  const copy = join(dir, 'edited.json');
  writeFileSync(copy, JSON.stringify(table, null, 2));
  const run = checkMappings('--file', copy);
  assert.equal(run.status, 1);
  const lines = run.stderr.trim().split('\n');
  assert.deepEqual(lines.slice(0, -1).sort(), expected.map((e) => `${copy}: ${e}`).sort());
  assert.equal(lines.at(-1), `check-mappings: ${expected.length} problems in the mapping table`);
});

test('the gateway refuses to start on the same copy, naming the same problems', async (t) => {
  const dir = join(mkdtempSync(join(tmpdir(), 'check-mappings-')), 'mappings');
  t.after(() => rmSync(join(dir, '..'), { recursive: true, force: true }));
  mkdirSync(dir);
  for (const file of ['schema.json', 'platform-core.json']) copyFileSync(join(MAPPINGS_DIR, file), join(dir, file));
  const { table, expected } = faultyCopy();
  writeFileSync(join(dir, 'workflow-engine.json'), JSON.stringify(table, null, 2));
  const store = await openTestStore({ countCacheEntries: 0 });
  t.after(() => store.close());
  const config = await testConfig({ CORE_URL: 'http://127.0.0.1:9' });
  assert.throws(
    () => createGatewayApp({ config, logger: createLogger({ level: 'error', service: 'gateway', silent: true }), store, mappingsDir: dir }),
    (err: unknown) => {
      assert.ok(err instanceof MappingError, String(err));
      assert.deepEqual([...err.problems].sort(), expected.map((e) => `mappings/workflow-engine.json: ${e}`).sort());
      for (const e of expected) assert.ok(err.message.includes(e), `the start-up error names ${e}`);
      return true;
    },
  );
});

test('check-mappings refuses a --file it cannot place, without checking anything', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'check-mappings-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'mixed.json'), JSON.stringify({ formatVersion: 1, entries: [{ source: 'platform-core' }, { source: 'workflow-engine' }] }));
  const run = checkMappings('--file', join(dir, 'mixed.json'));
  assert.equal(run.status, 2);
  assert.match(run.stderr, /cannot tell which table file it replaces: its entries name platform-core and workflow-engine/);
});
