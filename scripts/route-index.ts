/**
 * `npm run route-index`: writes docs/route-index.md, every route both
 * services answer, found by its path: the core's route table (built as
 * `npm run openapi` builds it, with the file each route was declared in),
 * the gateway's own routes, and every legacy operation of the mapping table
 * with its file and replacement. A test keeps the committed file equal to
 * what this makes; `--check` writes nothing and exits 1 when they differ.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../config/load.ts';
import type { AppConfig } from '../config/schema.ts';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../gateway/src/app.ts';
import { hatchRegistry } from '../gateway/src/mapping/hatches/index.ts';
import { loadMappings } from '../gateway/src/mapping/load.ts';
import type { Entry } from '../gateway/src/mapping/types.ts';
import { gatewayOwnRoutes } from '../gateway/src/openapi/own-routes.ts';
import { loadCalendar } from '../gateway/src/releases.ts';
import type { AnyRoute } from '../kernel/http/route.ts';
import { coreRouteTable } from './openapi-documents.ts';

export const INDEX_FILE = fileURLToPath(new URL('../docs/route-index.md', import.meta.url));
const REPOSITORY = fileURLToPath(new URL('..', import.meta.url));
/** Where the gateway's own route records are written (they are described there and served by Koa middleware). */
const GATEWAY_OWN_ROUTES_FILE = 'gateway/src/openapi/own-routes.ts';
const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

type Row = readonly string[];

/** A table cell: code for names and paths, and no character that would end the cell or the row. */
function code(text: string): string {
  return `\`${text.replace(/\|/g, '\\|').replace(/\s+/g, ' ')}\``;
}

function table(header: Row, rows: readonly Row[]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

function byPath<T>(key: (item: T) => { path: string; method: string }): (a: T, b: T) => number {
  return (a, b) => {
    const x = key(a);
    const y = key(b);
    return x.path < y.path ? -1 : x.path > y.path ? 1 : METHOD_ORDER.indexOf(x.method) - METHOD_ORDER.indexOf(y.method);
  };
}

function roles(route: AnyRoute): string {
  return typeof route.roles === 'string' ? `*${route.roles}*` : route.roles.map(code).join(', ');
}

/**
 * Whether a grep for the path as the index writes it finds it in its file: not when the file builds it
 * (`/operations-manager/jobs/${action}`) or takes it from a constant; the index is how those are found.
 */
function literalIn(file: string | undefined, path: string, sources: Map<string, string>): boolean {
  if (!file) return false;
  let text = sources.get(file);
  if (text === undefined) {
    text = readFileSync(join(REPOSITORY, file), 'utf8');
    sources.set(file, text);
  }
  return [`'${path}'`, `"${path}"`, `\`${path}\``].some((quoted) => text.includes(quoted));
}

function coreSection(routes: readonly AnyRoute[]): string {
  const sources = new Map<string, string>();
  const sorted = [...routes].sort(byPath((r: AnyRoute) => r));
  const computed = sorted.filter((r) => !literalIn(r.declaredIn, r.path, sources)).length;
  const rows = sorted.map((r) => [
    r.method,
    `${code(r.path)}${literalIn(r.declaredIn, r.path, sources) ? '' : ' †'}`,
    r.provenance,
    code(r.name),
    roles(r),
    r.shape,
    r.declaredIn ? code(r.declaredIn) : '(unknown)',
  ]);
  return [
    `## The core (${routes.length} routes)`,
    '',
    'Paths in `@koa/router` syntax, under the core\'s root; the gateway passes each through unchanged. *Roles* are the role',
    'names of the provenance whose built-in roles allow the operation (`admin` of the provenance always does; docs/auth.md).',
    `*Shape* is the response shape the route answers in (docs/routes.md). † marks the ${computed} paths that do not appear`,
    'as written in their file (built from a list or a constant there): search for the operation name instead.',
    '',
    table(['Method', 'Path', 'Provenance', 'Operation', 'Roles', 'Shape', 'File'], rows),
  ].join('\n');
}

function gatewaySection(routes: readonly AnyRoute[]): string {
  const rows = [...routes].sort(byPath((r: AnyRoute) => r)).map((r) => [r.method, code(r.path), r.provenance, code(r.name), roles(r), code(GATEWAY_OWN_ROUTES_FILE)]);
  return [
    `## The gateway's own routes (${routes.length})`,
    '',
    `Described as route records in \`${GATEWAY_OWN_ROUTES_FILE}\` and served by the gateway's Koa middleware`,
    '(`gateway/src/app.ts`, `gateway/src/own-routes.ts`, `gateway/src/audit/report-route.ts`). Every other path that is',
    'not a legacy operation below is passed through to the core (docs/gateway.md).',
    '',
    table(['Method', 'Path', 'Provenance', 'Operation', 'Roles', 'Declared in'], rows),
  ].join('\n');
}

/** Which table file holds each entry id (`mappings/workflow-engine.json`), read as the loader reads the directory. */
function entryFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'schema.json')) {
    const table = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { entries?: ReadonlyArray<{ id?: unknown }> };
    for (const entry of table.entries ?? []) if (typeof entry.id === 'string') files.set(entry.id, relative(REPOSITORY, join(dir, name)));
  }
  return files;
}

function legacySection(entries: readonly Entry[], files: Map<string, string>): string {
  const rows = [...entries].sort(byPath((e: Entry) => e.legacy)).map((e) => [
    e.legacy.method,
    code(e.legacy.path),
    code(e.operation),
    e.source,
    code(files.get(e.id) ?? '(unknown)'),
    `${e.deprecated} / ${e.removed}`,
    e.replacement ? `${e.replacement.method} ${code(e.replacement.path)}` : 'none',
  ]);
  return [
    `## Legacy operations of the mapping table (${entries.length})`,
    '',
    'Served by the gateway from the mapping table (docs/gateway.md): rewritten onto the core\'s operations until the release',
    'that removes them, then refused with 410. *Family* is the file\'s legacy API family (`source` in the table).',
    '',
    table(['Method', 'Path', 'Operation', 'Family', 'Mapping file', 'Deprecated / removed', 'Replacement'], rows),
  ].join('\n');
}

/** The index from a configuration: the shipped one for the committed file. */
export function routeIndex(config: Readonly<AppConfig>): string {
  const calendar = loadCalendar(CALENDAR_FILE);
  const entries = loadMappings(MAPPINGS_DIR, calendar, hatchRegistry);
  return [
    '# Route index',
    '',
    '<!-- Made by `npm run route-index` (scripts/route-index.ts) from the code; test/scripts/route-index.test.ts fails when it is stale. Do not edit. -->',
    '',
    'Every route the two services answer, sorted by path, with the file that declares it: a path is found here even where',
    'its file builds it. Words (provenance, shape, legacy family): the glossary in docs/architecture.md.',
    '',
    coreSection(coreRouteTable(config)),
    '',
    gatewaySection(gatewayOwnRoutes(config.metrics.enabled)),
    '',
    legacySection(entries, entryFiles(MAPPINGS_DIR)),
    '',
  ].join('\n');
}

/** The shipped configuration only: the environment of whoever runs the script must not change the file. */
export async function committedIndex(): Promise<string> {
  return routeIndex(await loadConfig({ env: {} }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await committedIndex();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(INDEX_FILE, 'utf8');
    } catch {
      // Missing counts as different.
    }
    if (current !== text) {
      console.error(`${INDEX_FILE} is not what npm run route-index makes`);
      process.exit(1);
    }
  } else {
    writeFileSync(INDEX_FILE, text);
    console.log(`wrote ${INDEX_FILE}`);
  }
}
