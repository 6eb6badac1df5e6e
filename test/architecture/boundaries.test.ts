/**
 * The house's boundaries hold: the check runs over the real tree, and, so
 * that it is known to be able to fail, over a planted tree with one crossing
 * of each kind written in each import form.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { violations } from './imports.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('no file of the core, the gateway, the kernel or the config loader crosses the boundary', () => {
  const found = violations(ROOT);
  assert.deepEqual(found, [], found.map((v) => `${v.file} imports ${v.imports}: ${v.rule}`).join('\n'));
});

test('the check reports a planted crossing of each kind, whatever the import form', () => {
  const root = mkdtempSync(join(tmpdir(), 'boundaries-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  try {
    write('kernel/index.ts', "export { a } from './a.ts';\n");
    write('kernel/a.ts', "import { x } from '../core/src/x.ts';\nexport const a = x;\n");
    write('core/src/x.ts', "import { a } from '../../kernel/index.ts';\nimport type { G } from '../../gateway/src/g.ts';\nexport const x: G = a;\n");
    write('core/src/deep.ts', "import {\n  a,\n} from '../../kernel/a.ts';\nexport { a };\n");
    write('gateway/src/g.ts', "export type G = number;\nexport * from '../../core/src/x.ts';\n");
    write('gateway/src/lazy.ts', "export const load = () => import('../../core/src/x.ts');\n");
    write('gateway/src/side.ts', "import '../../core/src/x.ts';\n");
    write('gateway/src/worker.ts', "export const url = new URL('../../core/src/x.ts', import.meta.url);\n");
    write('gateway/src/legacy.cjs', "module.exports = require('../../core/src/x.ts');\n");
    write('config/load.ts', "import { G } from '../gateway/src/g.ts';\nexport type C = G;\n");
    const found = violations(root).map((v) => `${v.file} -> ${v.imports}`).sort();
    assert.deepEqual(found, [
      'config/load.ts -> gateway/src/g.ts',
      'core/src/deep.ts -> kernel/a.ts',
      'core/src/x.ts -> gateway/src/g.ts',
      'gateway/src/g.ts -> core/src/x.ts',
      'gateway/src/lazy.ts -> core/src/x.ts',
      'gateway/src/legacy.cjs -> core/src/x.ts',
      'gateway/src/side.ts -> core/src/x.ts',
      'gateway/src/worker.ts -> core/src/x.ts',
      'kernel/a.ts -> core/src/x.ts',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
