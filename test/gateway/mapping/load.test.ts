/**
 * The loader's schema errors read as the operator wrote the table: a step is
 * judged as the shape its key names (not as each of the five shapes it is
 * not), and every problem of every file is named at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../../../gateway/src/app.ts';
import { hatchRegistry } from '../../../gateway/src/mapping/hatches/index.ts';
import { checkMappings } from '../../../gateway/src/mapping/load.ts';
import { loadCalendar } from '../../../gateway/src/releases.ts';

type Table = { formatVersion: number; entries: Array<Record<string, unknown> & { id: string; steps: Array<Record<string, unknown>> }> };

test('schema problems are located and named once each, a step by the shape it meant', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mappings-load-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const table = JSON.parse(readFileSync(join(MAPPINGS_DIR, 'platform-core.json'), 'utf8')) as Table;
  const [a, b, c, d] = [table.entries[0]!, table.entries[1]!, table.entries[2]!, table.entries[3]!];
  a.steps[0] = { ...a.steps[0], withh: 1 };
  b.steps[0] = { bogus: 1 };
  c['removed'] = undefined;
  (d.legacy as Record<string, unknown>)['method'] = 'FETCH';
  table.formatVersion = 2;
  const copy = join(dir, 'copy.json');
  writeFileSync(copy, JSON.stringify(table));
  const { problems } = checkMappings(MAPPINGS_DIR, loadCalendar(CALENDAR_FILE), hatchRegistry, { replace: new Map([['platform-core.json', copy]]) });
  assert.deepEqual(problems.sort(), [
    `${copy}: entries[0] (${a.id}).steps[0].withh: is not a field here`,
    `${copy}: entries[1] (${b.id}).steps[0]: must be a step: an object with one of call, translateQuery, answer, code, unavailable`,
    `${copy}: entries[2] (${c.id}).removed: is required`,
    `${copy}: entries[3] (${d.id}).legacy.method: must be one of GET, POST, PUT, PATCH, DELETE`,
    `${copy}: table.formatVersion: must be 1`,
  ].sort());
});

test('the table as it is has no problem, and names are checked by a set of names alone (callers before hatch schemas)', () => {
  const calendar = loadCalendar(CALENDAR_FILE);
  assert.deepEqual(checkMappings(MAPPINGS_DIR, calendar, hatchRegistry).problems, []);
  const { problems } = checkMappings(MAPPINGS_DIR, calendar, new Set([...hatchRegistry.keys()].filter((n) => n !== 'weSearch')));
  assert.ok(problems.length > 0 && problems.every((p) => p.endsWith('.code: no escape hatch is named weSearch')), problems.join('\n'));
});
