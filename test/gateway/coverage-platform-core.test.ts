/**
 * Every platform-core endpoint the interface document deprecates has a
 * mapping entry with the document's schedule and replacement, and every
 * entry has a golden case. The endpoints are read from the document itself
 * ("Versioning" → "Platform core endpoints": the two lists and the first
 * column of the table), so an endpoint added there without an entry fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../../gateway/src/app.ts';
import { hatchRegistry } from '../../gateway/src/mapping/hatches/index.ts';
import { loadMappings } from '../../gateway/src/mapping/load.ts';
import type { Entry } from '../../gateway/src/mapping/types.ts';
import { loadCalendar } from '../../gateway/src/releases.ts';

// Tests run at the repository root; CI checks the shared specification out beside the repository.
const SPEC = '../shared/spec/platform-interface.md';
const GOLDEN = 'test/gateway/golden';
const SECTION = '### Platform core endpoints';

interface Listed {
  readonly endpoint: string;
  readonly deprecated: string;
  readonly removed: string;
  readonly replacement: string | null;
}

const ENDPOINT = /^((?:GET|POST|PUT|PATCH|DELETE)(?:\s+and\s+(?:GET|POST|PUT|PATCH|DELETE))*)\s+(\/\S+)$/;

/** `PUT and DELETE /x` is two endpoints; a cell or list item that is not an endpoint is an error, not a skip. */
function endpointsIn(list: string, where: string): string[] {
  return list
    .split(/[;,]/)
    .map((item) => item.trim().replace(/\s*\([^)]*\)\s*\.?$/, '').replace(/\.$/, ''))
    .filter((item) => item !== '')
    .flatMap((item) => {
      const found = ENDPOINT.exec(item);
      if (!found) throw new Error(`${where}: cannot read ${JSON.stringify(item)} as an endpoint`);
      return found[1]!.split(/\s+and\s+/).map((method) => `${method} ${found[2]}`);
    });
}

/** The endpoints of the section, each with the schedule of the paragraph above it. */
function platformCoreEndpoints(markdown: string): Listed[] {
  const start = markdown.indexOf(SECTION);
  if (start < 0) throw new Error(`the document has no section ${SECTION}`);
  const rest = markdown.slice(start + SECTION.length);
  const end = rest.search(/\n#{2,3} /);
  const out: Listed[] = [];
  let schedule: { deprecated: string; removed: string } | null = null;
  for (const line of (end < 0 ? rest : rest.slice(0, end)).split('\n').map((l) => l.trim())) {
    const prose = /^Deprecated (\d{4}\.\d+), removed (\d{4}\.\d+)([^:]*):(.*)$/.exec(line);
    if (prose) {
      schedule = { deprecated: prose[1]!, removed: prose[2]! };
      const none = /no replacement/.test(line);
      for (const endpoint of endpointsIn(prose[4]!, `list of ${prose[1]}`)) out.push({ endpoint, ...schedule, replacement: none ? null : '?' });
    } else if (line.startsWith('|')) {
      const [first = '', second = ''] = line.split('|').slice(1, -1).map((c) => c.trim());
      if (first === 'Deprecated' || /^-+$/.test(first)) continue;
      if (!schedule) throw new Error(`table row ${line} has no schedule above it`);
      const [replacement] = endpointsIn(second, `replacement of ${first}`);
      for (const endpoint of endpointsIn(first, `row ${first}`)) out.push({ endpoint, ...schedule, replacement: replacement ?? null });
    }
  }
  return out;
}

const routeOf = (e: Entry): string => `${e.legacy.method} ${e.legacy.path}`;

/** What the document lists that no entry serves, and what entries get wrong about it. */
function problems(listed: readonly Listed[], entries: readonly Entry[]): { missing: string[]; wrong: string[] } {
  const byRoute = new Map(entries.map((e) => [routeOf(e), e]));
  const missing: string[] = [];
  const wrong: string[] = [];
  for (const l of listed) {
    const e = byRoute.get(l.endpoint);
    if (!e) {
      missing.push(l.endpoint);
      continue;
    }
    const replacement = e.replacement ? `${e.replacement.method} ${e.replacement.path}` : null;
    if (e.operation !== l.endpoint) wrong.push(`${e.id}: operation ${e.operation}, the document writes ${l.endpoint}`);
    if (e.deprecated !== l.deprecated || e.removed !== l.removed) wrong.push(`${e.id}: ${e.deprecated}–${e.removed}, the document says ${l.deprecated}–${l.removed}`);
    if (l.replacement !== '?' && replacement !== l.replacement) wrong.push(`${e.id}: replacement ${replacement}, the document says ${l.replacement}`);
  }
  return { missing, wrong };
}

const document = readFileSync(SPEC, 'utf8');
const listed = platformCoreEndpoints(document);
const entries = loadMappings(MAPPINGS_DIR, loadCalendar(CALENDAR_FILE), hatchRegistry).filter((e) => e.source === 'platform-core');

test('the document lists the platform-core endpoints in all three groups, each once', () => {
  const endpoints = listed.map((l) => l.endpoint);
  assert.deepEqual(endpoints.filter((e, i) => endpoints.indexOf(e) !== i), [], 'listed twice');
  for (const known of ['POST /getActiveSessions', 'PUT /user-management/groups/:groupId/roles', 'POST /accounts', 'GET /groups/list', 'DELETE /roles/:roleId/allowedViews/:viewProvenance/:viewPath']) {
    assert.ok(endpoints.includes(known), `${known} should be read from the document`);
  }
  assert.equal(listed.find((l) => l.endpoint === 'POST /getActiveSessions')?.removed, '2022.1');
});

test('every endpoint of the document has an entry with its operation, schedule and replacement', () => {
  const { missing, wrong } = problems(listed, entries);
  assert.deepEqual(missing, [], 'endpoints without an entry in mappings/platform-core.json');
  assert.deepEqual(wrong, []);
});

test('every platform-core entry serves an endpoint of the document', () => {
  const endpoints = new Set(listed.map((l) => l.endpoint));
  assert.deepEqual(entries.filter((e) => !endpoints.has(routeOf(e))).map((e) => e.id), []);
});

test('every platform-core entry has a golden case', () => {
  const covered = new Set(
    readdirSync(GOLDEN)
      .filter((f) => f.endsWith('.json'))
      .map((f) => (JSON.parse(readFileSync(join(GOLDEN, f), 'utf8')) as { entry?: string }).entry),
  );
  assert.deepEqual(entries.filter((e) => !covered.has(e.id)).map((e) => e.id), []);
});

test('an endpoint added to the document without an entry is reported', () => {
  const edited = document
    .replace('POST /accounts.', 'POST /accounts; GET /user-management/sessions.')
    .replace('| DELETE /roles/:roleId | DELETE /authorization/roles/:roleId |', '| DELETE /roles/:roleId | DELETE /authorization/roles/:roleId |\n| PUT and DELETE /roles/:roleId/owner | PATCH /authorization/roles/:roleId |');
  assert.notEqual(edited, document, 'the edit should apply to the document as written');
  const { missing } = problems(platformCoreEndpoints(edited), entries);
  assert.deepEqual(missing, ['GET /user-management/sessions', 'PUT /roles/:roleId/owner', 'DELETE /roles/:roleId/owner']);
});
