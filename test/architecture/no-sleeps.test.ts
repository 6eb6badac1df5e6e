/**
 * Tests tick instead of sleeping (test/README.md, "Waiting in a test"): no
 * test waits except through test/helpers/wait.ts, and every real wait says
 * why. The check runs over the real tree and, so that it is known to be able
 * to fail, over planted files with each kind of wait it must refuse, beside
 * the forms it must let through.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WAIT_HELPER, waitsIn, waitViolations } from './waits.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Spelled in pieces so that a grep of test/ for the word finds real waits only, not this file's plants.
const SLEEP = 'sl' + 'eep';

test('no test waits by a bare sleep, a timer built into a promise or timers/promises, and every real wait says why', () => {
  const found = waitViolations(ROOT);
  assert.deepEqual(found, [], found.map((v) => `${v.file}:${v.line} ${v.rule}: ${v.text}`).join('\n'));
});

test('the check reports each kind of planted wait, in a test, a helper or a fixture, and lets the allowed forms through', () => {
  const root = mkdtempSync(join(tmpdir(), 'no-sleeps-'));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  try {
    write('test/a.test.ts', [
      `const ${SLEEP} = (ms: number) => new Promise((r) => setTimeout(r, ms));`,
      `await ${SLEEP}(100);`,
      "await new Promise((resolve) => setTimeout(() => resolve(), 50));",
      "await new Promise<void>((resolve) => { setImmediate(() => { resolve(); }); });",
      `await support.${SLEEP}(5);`,
      'await delay(10);',
      "await timingSleep(100, 'x');",
      'await timingSleep(100, reason);',
    ].join('\n'));
    write('test/helpers/b.ts', `import { setTimeout as later } from 'node:timers/promises';\nexport const w = () => later(10);\n`);
    write('test/c.test.mjs', "const { setTimeout: t } = await import('timers/promises');\nawait wait(5);\n");
    write('test/ok.test.ts', [
      // What must pass: the helpers, a watchdog and a deadline that do something, words in strings, a task named delay.
      "import { eventually, nextTurn, timingSleep } from './helpers/wait.ts';",
      "await eventually(() => done, { what: 'done' });",
      'await nextTurn();',
      "await timingSleep(100, 'the detector is a real interval timer and notices a block only at its next check');",
      "const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);",
      "setTimeout(() => reject(new Error('no start')), 20_000);",
      `const payload = { $where: '${SLEEP}(100)' };`,
      'const task = delayTask(1.5);',
      'await run(delay, { incoming: { time: 0 } });',
    ].join('\n'));
    // The helper that makes the waits is the one place they may be made.
    write(WAIT_HELPER, `const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));\nexport const timingSleep = (ms: number, why: string) => pause(ms);\n`);
    const found = waitViolations(root).map((v) => `${v.file}:${v.line} ${v.rule}`).sort();
    assert.deepEqual(found, [
      'test/a.test.ts:1 timer as a wait',
      'test/a.test.ts:2 bare sleep',
      'test/a.test.ts:3 timer as a wait',
      'test/a.test.ts:4 timer as a wait',
      'test/a.test.ts:5 bare sleep',
      'test/a.test.ts:6 bare sleep',
      'test/a.test.ts:7 timingSleep without a reason',
      'test/a.test.ts:8 timingSleep without a reason',
      'test/c.test.mjs:1 timers/promises',
      'test/c.test.mjs:2 bare sleep',
      'test/helpers/b.ts:1 timers/promises',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a word in a string or a comment is not a call', () => {
  assert.deepEqual(waitsIn('x.test.ts', `// ${SLEEP}(5) is what we no longer do\nconst q = '$where=${SLEEP}(1000)';\nconst t = \`${SLEEP}(5)\`;\n`), []);
});
