/**
 * The table of keys in config/README.md, made from the declaration in keys.ts.
 * `node --import tsx config/readme.ts` rewrites the table in place (between its
 * markers; the prose around it is written by hand); `--check` writes nothing
 * and exits 1 when the README is stale. test/config/readme.test.ts runs the check.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Declaration, KeySpec } from './declare.ts';
import { CONFIG_KEYS } from './keys.ts';

export const README_FILE = fileURLToPath(new URL('./README.md', import.meta.url));
export const TABLE_START = '<!-- config-keys:start (made from config/keys.ts by `node --import tsx config/readme.ts`; edit the keys there, not here) -->';
export const TABLE_END = '<!-- config-keys:end -->';

const code = (text: string): string => `\`${text}\``;

function shownDefault(value: unknown): string {
  if (typeof value === 'string') return code(value);
  if (Array.isArray(value)) return code(`[${value.map((v) => JSON.stringify(v)).join(', ')}]`);
  return code(JSON.stringify(value));
}

function shownEnv(spec: KeySpec<unknown>): string {
  if (spec.env === undefined) return '(file only)';
  if (spec.envForm === 'json') return `${code(spec.env)} (JSON)`;
  if (spec.envForm === 'list') return `${code(spec.env)} (comma-separated)`;
  return code(spec.env);
}

/** A cell may not hold a raw `|` (even inside a code span) or a line break. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

export function keysTable(decl: Declaration = CONFIG_KEYS): string {
  const rows = Object.entries(decl).map(([path, spec]) => `| ${code(path)} | ${cell(shownEnv(spec))} | ${cell(shownDefault(spec.default))} | ${cell(spec.description)} |`);
  // Blank lines around the table, so the markers never read as one of its rows.
  return [TABLE_START, '', '| Key | Env variable | Default | Meaning |', '| --- | --- | --- | --- |', ...rows, '', TABLE_END].join('\n');
}

/** The README with its table replaced by `table`; throws when the markers are missing or out of order. */
export function withTable(readme: string, table: string = keysTable()): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`config/README.md lost its table markers (${TABLE_START} … ${TABLE_END})`);
  return readme.slice(0, start) + table + readme.slice(end + TABLE_END.length);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const current = readFileSync(README_FILE, 'utf8');
  const made = withTable(current);
  if (process.argv.includes('--check')) {
    if (made !== current) console.error(`${README_FILE} is stale: run node --import tsx config/readme.ts`);
    process.exit(made === current ? 0 : 1);
  }
  writeFileSync(README_FILE, made);
  console.log(`wrote ${README_FILE}`);
}
