/**
 * The core's OpenAPI document, as `GET /openapi.json` serves it without
 * credentials: valid OpenAPI 3.1 by an independent validator, holding every
 * route the core mounts with its parameters and security, its Joi inputs
 * converted (checked by Ajv agreeing with the route's own validator), and
 * equal to the committed docs/openapi-core.json.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from '../../../kernel/openapi/document.ts';
import { openApiPath } from '../../../kernel/openapi/shapes.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import { committedDocuments, DOCUMENT_FILES } from '../../../scripts/openapi.ts';
import { request, startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

let core: RunningCore;
let doc: OpenApiDocument;
before(async () => {
  core = await startCore(SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS }));
  const res = await request(`${core.url}/openapi.json`);
  assert.equal(res.status, 200);
  doc = res.body as OpenApiDocument;
});
after(() => core.close());

test('the served document is valid OpenAPI 3.1', async () => {
  const validator = new Validator();
  // A copy, as the validator's SpecData type wants a plain JSON value.
  const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
  assert.equal(validator.version, '3.1');
});

test('every route the core mounts is an operation with its path parameters, and public ones need no credentials', () => {
  for (const route of core.core.routes) {
    const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    assert.ok(op, `${route.method} ${route.path} is in the document`);
    const names = (op.parameters ?? []).filter((p) => p['in'] === 'path').map((p) => p['name']);
    assert.deepEqual(names, [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]), `${route.method} ${route.path} path parameters`);
    if (route.roles === 'public') assert.deepEqual(op.security, [], `${route.method} ${route.path} is public`);
    else {
      assert.equal(op.security, undefined, `${route.method} ${route.path} takes the document's credentials`);
      assert.ok(op.responses['401'], `${route.method} ${route.path} documents 401`);
    }
    if (Array.isArray(route.roles)) assert.ok(op.responses['403'], `${route.method} ${route.path} documents 403`);
  }
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['basic', 'bearer', 'cookie', 'queryToken']);
  assert.deepEqual(doc.components.securitySchemes['cookie'], { type: 'apiKey', in: 'cookie', name: 'token', description: 'The cookie POST /login sets' });
});

test("a converted Joi body accepts and refuses what the route's own validator does", async () => {
  const op = doc.paths['/operations-manager/jobs/cancel']!['post']!;
  const schema = (op.requestBody!['content'] as Record<string, { schema: object }>)['application/json']!.schema;
  const validate = new Ajv2020({ strict: false }).compile(schema);
  const cases: unknown[] = [{ jobIds: [] }, { jobIds: ['0000000000000000000000a1'] }, { jobIds: ['xyz'] }, { jobIds: ['0000000000000000000000a1'], other: 1 }, {}];
  for (const body of cases) {
    const res = await core.request('/operations-manager/jobs/cancel', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    // Refused by the validator: "Invalid body: ..." (a well-formed request for a job that does not exist is refused later, otherwise).
    const refused = res.status === 400 && String((res.body as { message?: string }).message).startsWith('Invalid body');
    assert.equal(validate(body), !refused, `${JSON.stringify(body)}: document says ${validate(body)}, route answered ${res.status} ${JSON.stringify(res.body)}`);
  }
});

test('an operations-manager operation answers its envelope around its own data and metadata, other core routes their own error shape', () => {
  const om = doc.paths['/operations-manager/jobs']!['get']!;
  const schema = (om.responses['200'] as { content: Record<string, { schema: Record<string, unknown> }> }).content['application/json']!.schema;
  assert.deepEqual(schema['required'], ['message', 'data', 'metadata']);
  assert.equal(schema['additionalProperties'], false);
  const { data, metadata } = schema['properties'] as Record<string, Record<string, unknown>>;
  // The route's own shapes inside the envelope: a page of jobs (closed to the job's properties) and the page metadata.
  assert.equal(data!['type'], 'array');
  assert.equal((data!['items'] as Record<string, unknown>)['additionalProperties'], false);
  assert.deepEqual(Object.keys(metadata!['properties'] as object).sort(), ['currentPageSize', 'limit', 'nextPageSkip', 'previousPageSkip', 'skip', 'total']);
  assert.deepEqual(om.responses['400'], { $ref: '#/components/responses/OperationsManager400' });
  assert.deepEqual(doc.paths['/whoami']!['get']!.responses['401'], { $ref: '#/components/responses/Plain401' });
  assert.deepEqual(doc.paths['/oauth/token']!['post']!.responses['400'], { $ref: '#/components/responses/OAuth400' });
});

test('docs/openapi-core.json is what npm run openapi makes', async () => {
  const { core: made } = await committedDocuments();
  assert.equal(readFileSync(DOCUMENT_FILES.core, 'utf8'), made, 'run npm run openapi and commit docs/openapi-core.json');
});
