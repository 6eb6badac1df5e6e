/**
 * docs/gateway.md describes the mapping table as it is: its hatch table
 * (between the hatch-table markers) is what describe.ts renders from the
 * mapping files and the hatches' records, so editing either without the
 * other fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CALENDAR_FILE, MAPPINGS_DIR } from '../../../gateway/src/app.ts';
import { DOCS_BEGIN, DOCS_END, docsBlock } from '../../../gateway/src/mapping/describe.ts';
import { hatchRegistry } from '../../../gateway/src/mapping/hatches/index.ts';
import { loadMappings } from '../../../gateway/src/mapping/load.ts';
import { loadCalendar } from '../../../gateway/src/releases.ts';

const DOC = new URL('../../../docs/gateway.md', import.meta.url);

test("docs/gateway.md's hatch table agrees with the mapping files and the hatches (regenerate: npm run check-mappings -- --docs)", () => {
  const text = readFileSync(DOC, 'utf8');
  const begin = text.indexOf(DOCS_BEGIN);
  const end = text.indexOf(DOCS_END);
  assert.ok(begin >= 0 && end > begin, 'docs/gateway.md holds the hatch-table markers');
  const entries = loadMappings(MAPPINGS_DIR, loadCalendar(CALENDAR_FILE), hatchRegistry);
  assert.equal(text.slice(begin, end + DOCS_END.length), docsBlock(entries, hatchRegistry));
});

test('every hatch the registry lists is used by some entry, and the docs name each hatch and surface', () => {
  const entries = loadMappings(MAPPINGS_DIR, loadCalendar(CALENDAR_FILE), hatchRegistry);
  const used = new Set(entries.flatMap((e) => e.steps.flatMap((s) => ('code' in s ? [s.code] : []))));
  assert.deepEqual([...hatchRegistry.keys()].filter((name) => !used.has(name)), []);
  const text = readFileSync(DOC, 'utf8');
  for (const surface of ['workflow-engine', 'platform-core']) assert.match(text, new RegExp(`- \`${surface}\` \\(\`mappings/${surface}\\.json\`\\)`));
});
