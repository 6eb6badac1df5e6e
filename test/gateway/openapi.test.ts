/**
 * The gateway's OpenAPI document and reference page, served without
 * credentials: valid OpenAPI 3.1; every one of the mapping table's legacy
 * operations deprecated with its releases, sunset date and successor; the
 * core's operations it passes through; its own routes; equal to the
 * committed docs/openapi.json. The page's files come from the installed
 * swagger-ui-dist package, under a CSP like the audit report's.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { OpenApiDocument } from '../../kernel/openapi/document.ts';
import { openApiPath } from '../../kernel/openapi/shapes.ts';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { CALENDAR_FILE } from '../../gateway/src/app.ts';
import { loadCalendar } from '../../gateway/src/releases.ts';
import { committedDocuments, DOCUMENT_FILES } from '../../scripts/openapi.ts';
import { request, startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';

let core: RunningCore;
let gw: RunningGateway;
let doc: OpenApiDocument;
before(async () => {
  core = await startCore(SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }));
  gw = await startGateway(core.url);
  const res = await request(`${gw.url}/openapi.json`);
  assert.equal(res.status, 200);
  doc = res.body as OpenApiDocument;
});
after(async () => {
  await gw.close();
  await core.close();
});

test("the gateway's document is valid OpenAPI 3.1", async () => {
  const validator = new Validator();
  // A copy, as the validator's SpecData type wants a plain JSON value.
  const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
});

test('every legacy operation is deprecated, with its deprecation and removal releases, its sunset and a link to its successor', () => {
  const calendar = loadCalendar(CALENDAR_FILE);
  assert.equal(gw.gateway.entries.length, 112);
  const ids = new Set<string>();
  const unlinked: string[] = [];
  for (const entry of gw.gateway.entries) {
    const op = doc.paths[openApiPath(entry.legacy.path)]?.[entry.legacy.method.toLowerCase()];
    assert.ok(op, `${entry.id} is in the document`);
    ids.add(op.operationId);
    assert.equal(op.deprecated, true, entry.id);
    assert.equal(op['x-deprecated-in'], entry.deprecated, entry.id);
    assert.equal(op['x-removed-in'], entry.removed, entry.id);
    assert.equal(op['x-sunset'], calendar.dateOf(entry.removed).toISOString().slice(0, 10), entry.id);
    assert.deepEqual(op.responses['410'], { $ref: '#/components/responses/Legacy410' }, entry.id);
    const ok = op.responses['200'] as { links?: Record<string, { operationId: string }> };
    if (!entry.replacement) {
      assert.equal(op['x-successor'], null, entry.id);
      continue;
    }
    const successor = doc.paths[openApiPath(entry.replacement.path)]?.[entry.replacement.method.toLowerCase()];
    assert.deepEqual((op['x-successor'] as { path: string }).path, openApiPath(entry.replacement.path), entry.id);
    // A successor the core does not serve yet is named (x-successor) but cannot be linked.
    if (!successor) {
      unlinked.push(entry.id);
      assert.equal(ok.links, undefined, entry.id);
    } else assert.equal(ok.links?.['successor']?.operationId, successor.operationId, `${entry.id} links to its successor`);
  }
  assert.equal(ids.size, 112, 'each legacy operation has its own operation id');
  assert.ok(unlinked.length < 10, `successors missing from the document: ${unlinked.join(', ')}`);
});

test('the core operations the gateway passes through are in its document, with its own routes', () => {
  for (const route of core.core.routes) {
    const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    assert.ok(op, `${route.method} ${route.path}`);
  }
  for (const path of ['/gateway/health/live', '/gateway/audit/report', '/metrics', '/openapi.json', '/docs']) assert.ok(doc.paths[path]?.['get'], path);
  assert.deepEqual(doc.paths['/gateway/audit/report']!['get']!.parameters!.map((p) => p['name']), ['format', 'target', 'since', 'until']);
});

test('docs/openapi.json is what npm run openapi makes', async () => {
  const { gateway: made } = await committedDocuments();
  assert.equal(readFileSync(DOCUMENT_FILES.gateway, 'utf8'), made, 'run npm run openapi and commit docs/openapi.json');
});

test('GET /docs is public, loads Swagger UI from the installed package (no CDN) and carries a CSP like the audit report', async () => {
  const packageDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  for (const base of [gw.url, core.url]) {
    const page = await fetch(`${base}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    for (const part of ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"]) assert.ok(csp.includes(part), `${base}: CSP has ${part}`);
    const html = await page.text();
    assert.doesNotMatch(html, /https?:\/\//, 'the page loads nothing from elsewhere');
    assert.doesNotMatch(html, /<script>/, 'no inline script');
    const bundle = await fetch(`${base}/docs/swagger-ui-bundle.js`);
    assert.equal(bundle.status, 200);
    assert.deepEqual(Buffer.from(await bundle.arrayBuffer()), readFileSync(join(packageDir, 'swagger-ui-bundle.js')), 'the file of the npm package');
  }
  assert.equal((await fetch(`${gw.url}/docs/package.json`)).status, 404, 'only the page\'s files are served');
  assert.equal((await fetch(`${core.url}/docs/..%2Fpackage.json`)).status, 400);
});
