/**
 * `GET /docs` as a browser draws it: Debian's headless Chromium opens the
 * gateway's reference page over HTTP (scripts allowed by its CSP only from
 * the gateway itself) and Swagger UI renders the operations of
 * `/openapi.json`, opened at a tag as a deep link would: the DOM after
 * scripts ran holds each of the tag's operations, legacy ones marked
 * deprecated, and the screenshot is a page drawn in Swagger UI's operation
 * colours, not a blank one. Skipped, saying why, when Chromium is missing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { chromiumMissing, decodePng, findChromium, runChromium } from '../helpers/chromium.ts';
import { startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';

const WIDTH = 1280;
const HEIGHT = 1600;
const skip = chromiumMissing();
if (skip) console.log(`docs rendering test skipped: ${skip}`);

let core: RunningCore;
let gw: RunningGateway;
let dir: string;
before(async () => {
  core = await startCore(SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }));
  gw = await startGateway(core.url);
  dir = mkdtempSync(join(tmpdir(), 'docs-render-'));
});
after(async () => {
  await gw.close();
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

// Virtual time lets the page's scripts fetch and render the document before Chromium dumps or shoots it.
const BUDGET = '--virtual-time-budget=15000';

/** The page opened at one tag (a deep link), whose operations Swagger UI then draws. */
function tagUrl(tag: string): string {
  return `${gw.url}/docs#/${encodeURIComponent(tag)}`;
}

test('Swagger UI draws the operations of a tag, legacy ones as deprecated', { skip, timeout: 120_000 }, async () => {
  const legacy = gw.gateway.entries.filter((e) => e.source === 'workflow-engine').length;
  const om = new Set(core.core.routes.filter((r) => r.provenance === 'OperationsManager').map((r) => `${r.method} ${r.path}`)).size;
  for (const [tag, expected, deprecated] of [['legacy workflow-engine', legacy, legacy], ['OperationsManager', om, 0]] as const) {
    const run = await runChromium(findChromium()!, tagUrl(tag), join(dir, `profile-${expected}`), [BUDGET, '--dump-dom'], [WIDTH, HEIGHT]);
    assert.equal(run.code, 0, `chromium failed: ${run.stderr}`);
    const dom = run.stdout;
    assert.match(dom, /iap-compat gateway/, "the document's title is shown");
    assert.equal((dom.match(/class="opblock opblock-/g) ?? []).length, expected, `${tag}: every operation drawn`);
    assert.equal((dom.match(/opblock-deprecated/g) ?? []).length, deprecated, `${tag}: deprecated operations`);
  }
});

test('the reference page renders in headless Chromium as a drawn page of the requested size', { skip, timeout: 90_000 }, async () => {
  const png = join(dir, 'docs.png');
  const run = await runChromium(findChromium()!, tagUrl('OperationsManager'), join(dir, 'profile-shot'), [BUDGET, `--screenshot=${png}`], [WIDTH, HEIGHT]);
  assert.equal(run.code, 0, `chromium failed: ${run.stderr}`);
  assert.ok(existsSync(png), `no screenshot written: ${run.stderr}`);
  // To look at it: DOCS_SCREENSHOT=/tmp/docs.png node scripts/run-tests.mjs docs-render
  if (process.env['DOCS_SCREENSHOT']) copyFileSync(png, process.env['DOCS_SCREENSHOT']);
  const image = decodePng(readFileSync(png));
  assert.deepEqual([image.width, image.height], [WIDTH, HEIGHT]);
  const near = (r: number, g: number, b: number, rgb: number) => Math.abs(r - (rgb >> 16)) <= 10 && Math.abs(g - ((rgb >> 8) & 0xff)) <= 10 && Math.abs(b - (rgb & 0xff)) <= 10;
  // Swagger UI's method colours: GET blue, POST green.
  const found = { getBadge: 0, postBadge: 0 };
  const colours = new Set<number>();
  for (let y = 0; y < image.height; y += 2) {
    for (let x = 0; x < image.width; x += 2) {
      const i = (y * image.width + x) * image.channels;
      const [r, g, b] = [image.pixels[i]!, image.pixels[i + 1]!, image.pixels[i + 2]!];
      colours.add((r << 16) | (g << 8) | b);
      if (near(r, g, b, 0x61affe)) found.getBadge += 1;
      if (near(r, g, b, 0x49cc90)) found.postBadge += 1;
    }
  }
  assert.ok(colours.size >= 40, `only ${colours.size} distinct colours: a blank or unstyled page`);
  for (const [what, count] of Object.entries(found)) assert.ok(count >= 20, `${what}: ${count} sampled pixels; the operations did not draw`);
});
