/**
 * Every workflow-engine operation the interface document deprecates, and
 * every legacy /workflow_engine route it names, has a mapping entry with the
 * document's schedule and replacement, and every entry has a golden case.
 * The operations are read from the document itself ("Versioning" →
 * "Workflow-engine operations": the rows of the first table and the
 * comma-separated names of the second's first column; "Legacy workflow-engine
 * operations": the route table), so a row added there without an entry fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openTestStore } from '../helpers/stores.ts';
import type { Entry, MappingTable } from '../../gateway/src/mapping/types.ts';
import { compareReleases } from '../../gateway/src/releases.ts';
import { request, startCore, testConfig } from '../helpers/core.ts';
import { createWorkflow, manual, workflow } from '../helpers/engine.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { GoldenCase } from './golden-runner.ts';

// Tests run at the repository root; CI checks the shared specification out beside the repository.
const SPEC = '../shared/spec/platform-interface.md';
const TABLE = 'mappings/workflow-engine.json';
const GOLDEN = 'test/gateway/golden';

interface Row {
  readonly operation: string;
  readonly deprecated: string;
  readonly removed: string;
  readonly replacement: string;
}

/** The lines of a `###` section, up to the next heading of level 2 or 3. */
function section(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n### ${heading}`);
  if (start < 0) throw new Error(`the document has no section "### ${heading}"`);
  const rest = markdown.slice(markdown.indexOf('\n', start + 1));
  const end = rest.search(/\n#{2,3} /);
  return (end < 0 ? rest : rest.slice(0, end)).split('\n').map((l) => l.trim());
}

/** The section's tables, each a list of body rows (cells trimmed), with the prose line just above it. */
function tables(lines: readonly string[]): Array<{ above: string; rows: string[][] }> {
  const out: Array<{ above: string; rows: string[][] }> = [];
  let above = '';
  let current: { above: string; rows: string[][] } | null = null;
  for (const line of lines) {
    if (!line.startsWith('|')) {
      current = null;
      if (line !== '') above = line;
      continue;
    }
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (!current) {
      // The first row is the header; the second is its rule.
      current = { above, rows: [] };
      out.push(current);
    } else if (!cells.every((c) => /^:?-+:?$/.test(c))) current.rows.push(cells);
  }
  return out;
}

function schedule(markdown: string): { first: Row[]; second: Row[] } {
  const found = tables(section(markdown, 'Workflow-engine operations (deprecation and removal releases)'));
  if (found.length !== 2) throw new Error(`expected the two workflow-engine deprecation tables, found ${found.length}`);
  const first = found[0]!.rows.map(([op = '', deprecated = '', removed = '', replacement = '']) => {
    // "startJobWithOptions (type-mismatched variables ...)": the name is the first word.
    const operation = /^\w+/.exec(op)?.[0];
    if (!operation) throw new Error(`cannot read an operation from the row ${op}`);
    return { operation, deprecated, removed, replacement };
  });
  const dates = /deprecated in (\d{4}\.\d+) and removed in (\d{4}\.\d+)/.exec(found[1]!.above);
  if (!dates) throw new Error(`the second table has no schedule above it: ${found[1]!.above}`);
  const second = found[1]!.rows.flatMap(([ops = '', replacement = '']) =>
    ops.split(',').map((operation) => ({ operation: operation.trim(), deprecated: dates[1]!, removed: dates[2]!, replacement })),
  );
  return { first, second };
}

function legacyRoutes(markdown: string): Array<{ method: string; path: string }> {
  const [routes] = tables(section(markdown, 'Legacy workflow-engine operations'));
  if (!routes) throw new Error('the section "Legacy workflow-engine operations" has no route table');
  return routes.rows.map(([method = '', path = '']) => ({ method, path: path.replace(/`/g, '') }));
}

const shape = (path: string): string => path.replace(/:\w+/g, ':');
const replacementOf = (e: Entry): string => (e.replacement ? `${e.replacement.method} ${e.replacement.path}` : 'none');

const markdown = readFileSync(SPEC, 'utf8');
const entries = (JSON.parse(readFileSync(TABLE, 'utf8')) as MappingTable).entries;
const byId = new Map(entries.map((e) => [e.id, e]));
const cases = readdirSync(GOLDEN).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(GOLDEN, f), 'utf8')) as GoldenCase);

/** The entry of an operation: `workflow-engine.<operation>`, naming that operation. */
function entryOf(operation: string): Entry | undefined {
  const e = byId.get(`workflow-engine.${operation}`);
  return e && e.operation === operation ? e : undefined;
}

test('the document yields both deprecation tables and the legacy routes', () => {
  const { first, second } = schedule(markdown);
  assert.ok(first.length > 0 && second.length > 0 && legacyRoutes(markdown).length > 0, 'nothing read: the document layout changed');
});

test('every operation of the second table has its entry, with the schedule and replacement of the table', () => {
  const { second } = schedule(markdown);
  const missing = second.filter((r) => !entryOf(r.operation)).map((r) => r.operation);
  assert.deepEqual(missing, [], 'operations without an entry workflow-engine.<operation>');
  const wrong = second.flatMap((r) => {
    const e = entryOf(r.operation)!;
    const problems: string[] = [];
    if (e.deprecated !== r.deprecated || e.removed !== r.removed) problems.push(`${e.id}: ${e.deprecated}→${e.removed}, the table says ${r.deprecated}→${r.removed}`);
    if (replacementOf(e) !== r.replacement) problems.push(`${e.id}: replacement ${replacementOf(e)}, the table says ${r.replacement}`);
    return problems;
  });
  assert.deepEqual(wrong, []);
});

test('every row of the first table has its entry; a row the second table also lists is covered by that same entry', (t) => {
  const { first, second } = schedule(markdown);
  const later = new Set(second.map((r) => r.operation));
  const missing = first.filter((r) => !entryOf(r.operation)).map((r) => r.operation);
  assert.deepEqual(missing, [], 'operations without an entry workflow-engine.<operation>');
  const wrong: string[] = [];
  for (const r of first) {
    const e = entryOf(r.operation)!;
    if (later.has(r.operation)) {
      // docs/decisions.md D17: the first-table startJobWithOptions row is the old acceptance of
      // type-mismatched variables, a behaviour of the one operation, whose own schedule is the second table's.
      t.diagnostic(`${r.operation} (first table, ${r.deprecated}→${r.removed}, "${r.replacement}") is covered by ${e.id} (${e.deprecated}→${e.removed})`);
      continue;
    }
    if (e.deprecated !== r.deprecated || e.removed !== r.removed) wrong.push(`${e.id}: ${e.deprecated}→${e.removed}, the table says ${r.deprecated}→${r.removed}`);
    // The first table names replacements loosely ("/workflow_engine/finishTask", "X and Y"): the entry's path must be one of them.
    if (r.replacement === 'none' ? e.replacement !== null : !e.replacement || !r.replacement.includes(e.replacement.path)) wrong.push(`${e.id}: replacement ${replacementOf(e)}, the table says ${r.replacement}`);
  }
  assert.deepEqual(wrong, []);
});

test('every legacy route the interface names has its entry, scheduled like the operation the platform served there', () => {
  const { second } = schedule(markdown);
  const missing: string[] = [];
  const wrong: string[] = [];
  for (const route of legacyRoutes(markdown)) {
    const e = entries.find((x) => x.legacy.method === route.method && shape(x.legacy.path) === shape(route.path));
    if (!e) {
      missing.push(`${route.method} ${route.path}`);
      continue;
    }
    const row = second.find((r) => r.operation === e.operation);
    if (!row) wrong.push(`${e.id}: its operation ${e.operation} is not in the second table`);
    else if (e.deprecated !== row.deprecated || e.removed !== row.removed) wrong.push(`${e.id}: ${e.deprecated}→${e.removed}, ${row.operation} is ${row.deprecated}→${row.removed}`);
  }
  assert.deepEqual(missing, [], 'routes without an entry');
  assert.deepEqual(wrong, []);
});

test('every workflow-engine entry has a golden case; one removed by the default release has a rewrite before its removal and the 410 after', async () => {
  const release = (await testConfig()).platform.release;
  const missing: string[] = [];
  for (const e of entries) {
    const own = cases.filter((c) => c.entry === e.id);
    if (own.length === 0) missing.push(e.id);
    if (own.length === 0 || compareReleases(e.removed, release) > 0) continue;
    const at = (c: GoldenCase): string => c.release ?? release;
    if (!own.some((c) => compareReleases(at(c), e.removed) < 0 && c.expectAnswer.status !== 410)) missing.push(`${e.id}: a case before ${e.removed} showing the rewrite`);
    if (!own.some((c) => compareReleases(at(c), e.removed) >= 0 && c.expectAnswer.status === 410 && typeof c.expectAnswer.body === 'string')) missing.push(`${e.id}: a case at ${release} showing the 410`);
  }
  assert.deepEqual(missing, []);
});

test('the first-table startJobWithOptions row: type-mismatched variables are the legacy error', async () => {
  const store = await openTestStore();
  const core = await startCore(store);
  const gw = await startGateway(core.url);
  try {
    const inputSchema = { type: 'object', properties: { count: { type: 'number' } } };
    await createWorkflow(core, workflow('legacy-typed', { c3d4: manual() }, [['workflow_start', 'c3d4'], ['c3d4', 'workflow_end']], { inputSchema }));
    const start = (variables: Record<string, unknown>) =>
      request(`${gw.url}/workflow_engine/startJobWithOptions/legacy-typed`, {
        method: 'POST',
        headers: { authorization: `Bearer ${core.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ options: { variables } }),
      });
    const refused = await start({ count: 'three' });
    assert.equal(refused.status, 500);
    assert.equal(typeof refused.body, 'string', 'the legacy error is a plain string');
    assert.match(refused.body as string, /options\.variables\.count/);
    const started = await start({ count: 3 });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.deepEqual((started.body as { variables: { count: unknown } }).variables.count, 3);
  } finally {
    await gw.close();
    await core.close();
    await store.close();
  }
});
