/**
 * The failure summary `npm test` prints at the end of a run in a log
 * (scripts/test-failures.mjs): each failed test with its file and error,
 * and nothing for the suite that failed only through it, nor for passes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { LOG_REPORTERS } from '../../scripts/test-failures.mjs';

const FIXTURE = 'test/fixtures/test-runner/one-failing.ts';

function run(reporterArgs: readonly string[]): { status: number | null; stdout: string } {
  // Without NODE_TEST_CONTEXT: with it, a test runner inside a test reports to this one instead of to its reporters.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_TEST_CONTEXT'));
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...reporterArgs, FIXTURE], { encoding: 'utf8', timeout: 60_000, env });
  return { status: r.status, stdout: r.stdout };
}

test('the summary names the failed test, its file and its error, after everything else', () => {
  const { status, stdout } = run(LOG_REPORTERS);
  assert.equal(status, 1);
  const at = stdout.indexOf('# 1 failed:');
  assert.ok(at > stdout.indexOf('# fail 1'), 'the summary comes after the TAP totals');
  const summary = stdout.slice(at);
  assert.match(summary, /# FAILED the failing test\n#   in .*test\/fixtures\/test-runner\/one-failing\.ts\n/);
  assert.match(summary, /AssertionError/);
  assert.match(summary, /'measured'/);
  assert.doesNotMatch(summary, /a suite holding one failure|passing/);
});

test('a run without failures prints no summary', () => {
  const { status, stdout } = run(['--test-name-pattern=passing', '--test-reporter=./scripts/test-failures.mjs', '--test-reporter-destination=stdout']);
  assert.equal(status, 0);
  assert.equal(stdout, '');
});
