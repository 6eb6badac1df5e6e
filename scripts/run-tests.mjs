// Runs every test/**/*.test.ts with node's test runner through tsx.
// Node 20 does not expand globs itself, so the file list is built here.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...collect(full));
    else if (entry.name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const filter = process.argv.slice(2);
const files = collect('test').filter((f) => filter.length === 0 || filter.some((p) => f.includes(p))).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// A hung test fails after five minutes instead of holding CI until its own limit.
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-timeout=300000', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
