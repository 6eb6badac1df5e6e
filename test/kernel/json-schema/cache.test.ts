/**
 * The compile cache really frees what it drops: 10,000 distinct schemas
 * compiled through it leave the heap (after a full collection) within a few
 * megabytes of where it was with one full generation held. Measured in a
 * child process started with --expose-gc, so the collection is forced.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./fixtures/compile-many.ts', import.meta.url));
/** Ajv keeping all 10,000 grows the heap by about 200 MB; a bounded cache by one or two. */
const BOUND = 24 * 1024 * 1024;

test('compiling 10,000 distinct schemas leaves the heap bounded', async () => {
  const out = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', '--import', 'tsx', SCRIPT, '10000'], { timeout: 240_000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
  });
  const { before, after, generations, held } = JSON.parse(out.trim().split('\n').pop()!) as { before: number; after: number; generations: number; held: number };
  assert.ok(after - before < BOUND, `the heap grew by ${((after - before) / 1048576).toFixed(1)} MB (before ${(before / 1048576).toFixed(1)} MB)`);
  assert.ok(generations > 10, `the cache started ${generations} generations`);
  assert.ok(held <= 256, `the cache holds ${held} schemas`);
});
