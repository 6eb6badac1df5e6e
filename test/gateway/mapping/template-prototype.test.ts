/**
 * Templates and the mapping loader with prototype names (issue 26): a
 * template path through `__proto__`, `constructor` or `prototype` is a
 * start-up error naming the entry and the path, a filled template never reads
 * an inherited member, and keys of filled objects are defined as own data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../../../gateway/src/app.ts';
import { hatchRegistry } from '../../../gateway/src/mapping/hatches/index.ts';
import { checkMappings } from '../../../gateway/src/mapping/load.ts';
import { fill, lastPath } from '../../../gateway/src/mapping/template.ts';
import { loadCalendar } from '../../../gateway/src/releases.ts';

type Table = { entries: Array<{ id: string; steps: Array<Record<string, unknown>> }> };

test('a template path through a prototype name is refused when the table loads, naming the entry and the path', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mappings-proto-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const table = JSON.parse(readFileSync(join(MAPPINGS_DIR, 'workflow-engine.json'), 'utf8')) as Table;
  const entry = table.entries[0]!;
  entry.steps = [{ answer: { a: '{body.__proto__.hostname}', b: '{calls.constructor}', c: 'x {query.prototype} y' } }];
  const copy = join(dir, 'copy.json');
  writeFileSync(copy, JSON.stringify(table));
  const { problems } = checkMappings(MAPPINGS_DIR, loadCalendar(CALENDAR_FILE), hatchRegistry, { replace: new Map([['workflow-engine.json', copy]]) });
  const index = table.entries.indexOf(entry);
  assert.deepEqual(problems.sort(), [
    `${copy}: entries[${index}] (${entry.id}).steps[0].answer.a: {body.__proto__.hostname} goes through __proto__, which names a prototype, not data`,
    `${copy}: entries[${index}] (${entry.id}).steps[0].answer.b: {calls.constructor} goes through constructor, which names a prototype, not data`,
    `${copy}: entries[${index}] (${entry.id}).steps[0].answer.c: {query.prototype} goes through prototype, which names a prototype, not data`,
  ].sort());
});

test('filling a template through a prototype name throws rather than reading an inherited member', () => {
  assert.throws(() => fill('{body.constructor}', { body: {} }), /goes through constructor/);
  assert.throws(() => fill('id {body.a.__proto__}', { body: { a: {} } }), /goes through __proto__/);
  assert.equal(lastPath('{last.__proto__}'), null);
  assert.equal(lastPath('{last.data}')?.length, 1);
});

test('a filled object keeps the caller\'s values under own keys, and inherited members are never values', () => {
  const body = JSON.parse('{"query": {"__proto__": {"hostname": "::1"}, "status": "running"}}') as Record<string, unknown>;
  const filled = fill({ q: '{body.query}', missing: '{body.toString}' }, { body }) as Record<string, unknown>;
  assert.deepEqual(Object.keys(filled), ['q']);
  assert.equal(JSON.stringify(filled), '{"q":{"__proto__":{"hostname":"::1"},"status":"running"}}');
  const keyed = fill(JSON.parse('{"__proto__": "{body.query.status}"}'), { body }) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(keyed), Object.prototype);
  assert.equal(JSON.stringify(keyed), '{"__proto__":"running"}');
  assert.equal(({} as Record<string, unknown>)['hostname'], undefined);
});
