/**
 * The mapping sandbox's pool of evaluator processes on its own, with short limits: more
 * evaluations than evaluators queue and all finish; an evaluator killed for running
 * too long is replaced and the queue goes on; memory and output are capped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LIMITS, MappingError, MappingSandbox } from '../../../core/src/transformations/sandbox.ts';

const limits = { ...DEFAULT_LIMITS, timeoutMs: 200, graceMs: 200, workers: 1 };
const REDOS = '$match($pad("", 34, "a") & "b", /^(a+)+$/)';

async function failure(p: Promise<unknown>): Promise<MappingError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof MappingError, String(err));
    return err;
  }
  assert.fail('expected a MappingError');
}

test('evaluations beyond the pool size wait their turn and all finish', { timeout: 10_000 }, async () => {
  const sandbox = new MappingSandbox(limits);
  const results = await Promise.all([1, 2, 3, 4].map((n) => sandbox.evaluate('{"n": x * 10}', { x: n })));
  assert.deepEqual(results, [{ n: 10 }, { n: 20 }, { n: 30 }, { n: 40 }]);
  assert.equal(await sandbox.evaluate('nothing.here', {}), undefined);
  sandbox.close();
  // A closed pool starts new evaluators when used again.
  assert.deepEqual(await sandbox.evaluate('[x]', { x: 1 }), [1]);
  sandbox.close();
});

test('an evaluator stuck in one call is killed and replaced while others wait for it', { timeout: 10_000 }, async () => {
  const sandbox = new MappingSandbox(limits);
  const started = Date.now();
  const [stuck, after] = await Promise.allSettled([sandbox.evaluate(REDOS, {}), sandbox.evaluate('x + 1', { x: 1 })]);
  assert.equal(stuck.status, 'rejected');
  assert.equal((stuck as PromiseRejectedResult).reason.kind, 'timeout');
  assert.deepEqual(after, { status: 'fulfilled', value: 2 });
  assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  sandbox.close();
});

test('memory, output size, depth and JSONata errors are reported by kind', { timeout: 10_000 }, async () => {
  const sandbox = new MappingSandbox({ ...limits, timeoutMs: 5000, memoryMb: 32, maxOutputChars: 1000 });
  assert.equal((await failure(sandbox.evaluate('$count([1..5000].[1..5000])', {}))).kind, 'memory');
  assert.equal((await failure(sandbox.evaluate('$pad("", 2000, "x")', {}))).kind, 'too-large');
  assert.equal((await failure(sandbox.evaluate('($f := function($x) { 1 + $f($x) }; $f(0))', {}))).kind, 'depth');
  const e = await failure(sandbox.evaluate('$number("abc")', {}));
  assert.deepEqual([e.kind, /\(D3030\)$/.test(e.message)], ['error', true]);
  assert.equal(await sandbox.evaluate('"still fine"', {}), 'still fine');
  sandbox.close();
});
