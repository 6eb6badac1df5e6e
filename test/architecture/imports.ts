/**
 * What a source file imports, read from its text: static imports and
 * re-exports (type-only ones too: a type shared across the boundary couples
 * the two sides as much as a value), side-effect imports, dynamic imports,
 * `require`, and worker or asset files named by `new URL(..., import.meta.url)`.
 * Only relative specifiers are returned, resolved against the file; packages
 * are not the boundary's business.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const FORMS = [
  /\b(?:import|export)\s+(?:type\s+)?(?:[\w$*{}\s,]+?\s+from\s+)?['"]([^'"]+)['"]/g,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\bnew\s+URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g,
];

export function importsOf(file: string, text = readFileSync(file, 'utf8')): string[] {
  const out = new Set<string>();
  for (const form of FORMS) {
    for (const m of text.matchAll(form)) {
      const spec = m[1]!;
      if (spec.startsWith('./') || spec.startsWith('../')) out.add(resolve(dirname(file), spec));
    }
  }
  return [...out];
}

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(name)) out.push(path);
  }
  return out;
}

/** Which room of the house a path is in, by its top folder under `root`. */
export function roomOf(root: string, path: string): string {
  return relative(root, path).split(sep)[0]!;
}

export interface Violation {
  readonly file: string;
  readonly imports: string;
  readonly rule: string;
}

/**
 * The boundary (docs/architecture.md): the core and the gateway use the
 * kernel only through `kernel/index.ts`; the gateway imports nothing of the
 * core and the core nothing of the gateway; the kernel and the config loader
 * import neither service.
 */
export function violations(root: string): Violation[] {
  const entry = join(root, 'kernel', 'index.ts');
  const found: Violation[] = [];
  for (const room of ['core', 'gateway', 'kernel', 'config']) {
    for (const file of sourceFiles(join(root, room))) {
      for (const target of importsOf(file)) {
        const to = roomOf(root, target);
        const add = (rule: string) => found.push({ file: relative(root, file), imports: relative(root, target), rule });
        if ((room === 'core' && to === 'gateway') || (room === 'gateway' && to === 'core')) add(`${room} imports nothing of ${to}`);
        else if ((room === 'kernel' || room === 'config') && (to === 'core' || to === 'gateway')) add(`${room} imports neither service`);
        else if ((room === 'core' || room === 'gateway') && to === 'kernel' && target !== entry) add(`${room} uses the kernel through kernel/index.ts only`);
      }
    }
  }
  return found;
}
