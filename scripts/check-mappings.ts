/**
 * `npm run check-mappings [-- --file F]`: checks the mapping table as the
 * gateway does at start (gateway/src/mapping/load.ts), without starting
 * anything, and prints every problem, located.
 *
 * `--file F` checks an edited copy of one table file in its place, with the
 * rest of the table as it is (ids and routes must stay unique across files).
 * The copy replaces the table file of the same name (`workflow-engine.json`,
 * `platform-core.json`) when F is named so, else the file of the surface its
 * entries name in `source`. Repeat `--file` for several.
 * `--docs` prints, for a valid table, the block docs/gateway.md holds
 * between its hatch-table markers (gateway/src/mapping/describe.ts).
 * Exit codes: 0 the table is valid, 1 it has problems, 2 bad arguments.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../gateway/src/app.ts';
import { docsBlock } from '../gateway/src/mapping/describe.ts';
import { hatchRegistry } from '../gateway/src/mapping/hatches/index.ts';
import { checkMappings } from '../gateway/src/mapping/load.ts';
import { loadCalendar } from '../gateway/src/releases.ts';

class UsageError extends Error {}

/** The table file an edited copy stands for: by its name, else by the surface of its entries. */
function replacedFile(path: string, tableFiles: readonly string[]): string {
  const name = basename(path);
  if (tableFiles.includes(name)) return name;
  let sources: Set<unknown>;
  try {
    const table = JSON.parse(readFileSync(path, 'utf8')) as { entries?: Array<{ source?: unknown }> };
    sources = new Set((table.entries ?? []).map((e) => e.source));
  } catch (err) {
    throw new UsageError(`${path}: cannot tell which table file it replaces (${(err as Error).message}); name it ${tableFiles.join(' or ')}`);
  }
  const [source] = sources;
  if (sources.size !== 1 || !tableFiles.includes(`${String(source)}.json`)) {
    throw new UsageError(`${path}: cannot tell which table file it replaces: its entries name ${sources.size === 0 ? 'no source' : [...sources].map(String).join(' and ')}; name it ${tableFiles.join(' or ')}`);
  }
  return `${String(source)}.json`;
}

function main(): number {
  let files: string[];
  let docs: boolean;
  try {
    ({ values: { file: files = [], docs = false } } = parseArgs({ options: { file: { type: 'string', multiple: true }, docs: { type: 'boolean' } }, allowPositionals: false }));
  } catch (err) {
    console.error(`check-mappings: ${(err as Error).message}\nusage: npm run check-mappings [-- [--file <path>]... [--docs]]`);
    return 2;
  }
  const tableFiles = readdirSync(MAPPINGS_DIR).filter((f) => f.endsWith('.json') && f !== 'schema.json');
  const replace = new Map<string, string>();
  try {
    for (const file of files) replace.set(replacedFile(resolve(file), tableFiles), file);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`check-mappings: ${err.message}`);
    return 2;
  }
  const { entries, problems } = checkMappings(MAPPINGS_DIR, loadCalendar(CALENDAR_FILE), hatchRegistry, { replace });
  if (problems.length > 0) {
    for (const p of problems) console.error(p);
    console.error(`check-mappings: ${problems.length} problem${problems.length === 1 ? '' : 's'} in the mapping table`);
    return 1;
  }
  if (docs) {
    console.log(docsBlock(entries, hatchRegistry));
    return 0;
  }
  const hatched = entries.filter((e) => e.steps.some((s) => 'code' in s)).length;
  console.log(`check-mappings: ${entries.length} entries valid (${entries.length - hatched} templates only, ${hatched} with an escape hatch)${replace.size > 0 ? `, with ${[...replace].map(([name, path]) => `${path} as ${name}`).join(', ')}` : ''}`);
  return 0;
}

process.exitCode = main();
