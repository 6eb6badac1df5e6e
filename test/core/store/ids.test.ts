/**
 * Object ids: 24 hex characters laid out as a MongoDB ObjectId (creation
 * second, a per-process part, a counter), never repeated by one process and
 * not shared between two.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { newObjectId } from '../../../kernel/store/ids.ts';

test('an id is 24 hex characters that start with its creation second', () => {
  const at = Date.parse('2026-11-22T05:00:00Z');
  const id = newObjectId(at);
  assert.match(id, /^[0-9a-f]{24}$/);
  assert.equal(parseInt(id.slice(0, 8), 16), at / 1000);
});

test('ids made within one second are all different and in the order they were made', () => {
  const at = Date.now();
  const ids = Array.from({ length: 100_000 }, () => newObjectId(at));
  assert.equal(new Set(ids).size, ids.length);
  // The counter wraps after 2^24 ids; until then each id sorts after the one before.
  const wrapped = ids.findIndex((id, i) => i > 0 && id <= ids[i - 1]!);
  assert.ok(wrapped === -1 || ids[wrapped]!.endsWith('000000'), `out of order at ${wrapped}`);
});

test('two processes do not make the same ids', () => {
  const script = "import { newObjectId } from './kernel/store/ids.ts'; console.log(JSON.stringify(Array.from({ length: 1000 }, () => newObjectId(0))));";
  const run = (): string[] => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
  const [a, b] = [run(), run()];
  assert.notEqual(a[0]!.slice(8, 18), b[0]!.slice(8, 18), 'each process has its own middle part');
  assert.equal(new Set([...a, ...b]).size, 2000);
});
