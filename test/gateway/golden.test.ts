/** One golden case per mapping entry, each against the real gateway in front of the real core. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadMappings } from '../../gateway/src/mapping/load.ts';
import { hatchRegistry } from '../../gateway/src/mapping/hatches/index.ts';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../../gateway/src/app.ts';
import { loadCalendar } from '../../gateway/src/releases.ts';
import { runGolden } from './golden-runner.ts';
import { CREDENTIAL_FORMS } from '../helpers/credential-forms.ts';
import type { GoldenCase } from './golden-runner.ts';

const DIR = 'test/gateway/golden';
const cases = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort().map((f) => ({ file: f, c: JSON.parse(readFileSync(join(DIR, f), 'utf8')) as GoldenCase }));
const entries = loadMappings(MAPPINGS_DIR, loadCalendar(CALENDAR_FILE), hatchRegistry);

test('every mapping entry has at least one golden case, and every case names an entry', () => {
  const covered = new Set(cases.map(({ c }) => c.entry));
  const missing = entries.filter((e) => !covered.has(e.id)).map((e) => e.id);
  assert.deepEqual(missing, [], 'entries without a golden case');
  const known = new Set(entries.map((e) => e.id));
  assert.deepEqual(cases.filter(({ c }) => !known.has(c.entry)).map(({ file }) => file), [], 'cases naming no entry');
});

// Each case with one credential form, dealt out in turn: every form serves about a ninth of the cases.
for (const [i, { file, c }] of cases.entries()) {
  const form = CREDENTIAL_FORMS[i % CREDENTIAL_FORMS.length]!;
  test(`${c.entry}: ${c.description ?? file} (${form.name})`, () => runGolden(c, form));
}
