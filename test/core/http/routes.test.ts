/**
 * Every route is a record that declares its method name, provenance, roles,
 * inputs and success answer. A route that leaves one out fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCoreApp } from '../../../core/src/app.ts';
import { createLogger } from '../../../kernel/logger.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { testConfig } from '../../helpers/core.ts';

/** The only routes that may be called without credentials (docs/decisions.md D7). */
const PUBLIC = new Set(['GET /health/live', 'GET /health/status', 'POST /login', 'POST /oauth/token', 'GET /openapi.json', 'GET /docs', 'GET /docs/:file']);
/** Writes that take no body: the path says everything. */
const NO_BODY = new Set([
  'POST /indexes/:collectionName', 'POST /logout', 'POST /operations-manager/tasks/:id/continue', 'POST /operations-manager/tasks/:id/claim',
  'POST /operations-manager/tasks/:id/release', 'POST /operations-manager/jobs/:jobId/watch', 'POST /operations-manager/jobs/:jobId/unwatch',
  'PUT /profiles/:id/active',
]);
/** Answers that are not JSON (text, HTML, files, no body): the only routes whose answer is declared null. */
const NOT_JSON = new Set(['GET /metrics', 'GET /docs', 'GET /docs/:file', 'DELETE /transformations/:id']);
/** Routes any authenticated caller may use, whatever their roles. */
const ANY_CALLER = new Set(['GET /health/server', 'GET /health/system', 'GET /health/applications', 'GET /health/adapters', 'POST /logout', 'GET /whoami']);

test('every core route declares a method name, provenance, roles, surface, its inputs and its success answer', async () => {
  const store = await openTestStore();
  const { routes } = createCoreApp({ store, config: await testConfig(), logger: createLogger({ level: 'error', service: 'test', silent: true }) });
  assert.ok(routes.length >= 8);
  const seen = new Set<string>();
  for (const r of routes) {
    const id = `${r.method} ${r.path}`;
    assert.ok(!seen.has(id), `${id} is declared twice`);
    seen.add(id);
    assert.match(r.name, /^[A-Za-z][A-Za-z0-9]*$/, `${id} declares a method name`);
    assert.match(r.provenance, /^[A-Z][A-Za-z0-9]*$/, `${id} declares a provenance`);
    assert.ok(r.description.length > 10, `${id} describes itself`);
    assert.ok(['operations-manager', 'plain', 'oauth'].includes(r.shape), `${id} declares a shape`);
    if (r.roles === 'public') assert.ok(PUBLIC.has(id), `${id} is public but not on the documented public list`);
    else if (r.roles === 'authenticated') assert.ok(ANY_CALLER.has(id), `${id} is open to any caller but not on the documented list`);
    else assert.ok(r.roles.length > 0, `${id} names the roles that may call it`);
    if (r.path.includes(':')) assert.ok(r.input.params, `${id} has path parameters, so it must validate them`);
    // The interface document (docs/openapi.md) and the contract check describe answers from this.
    if (r.answer === null) assert.ok(NOT_JSON.has(id), `${id} declares that it answers no JSON, but it is not on the list of non-JSON answers`);
    else assert.ok(r.answer !== undefined && ('joi' in r.answer || 'jsonSchema' in r.answer), `${id} declares the schema of its success answer`);
    if (r.method !== 'GET' && r.method !== 'DELETE' && !r.input.body) {
      // A write without a body validator refuses any body; that must be a choice, visible here.
      assert.ok(NO_BODY.has(id), `${id} takes no body; add it to this list if that is intended`);
    }
  }
  await store.close();
});

test("operations-manager writes allow the roles the platform's apidocs list for them: admin, apiwrite, engineering, operations", async () => {
  const store = await openTestStore();
  const { routes } = createCoreApp({ store, config: await testConfig(), logger: createLogger({ level: 'error', service: 'test', silent: true }) });
  const writes = routes.filter((r) => r.provenance === 'OperationsManager' && r.method !== 'GET');
  assert.ok(writes.length >= 30, `${writes.length} operations-manager writes`);
  for (const r of writes) {
    assert.ok(Array.isArray(r.roles), `${r.method} ${r.path} names its roles`);
    assert.deepEqual([...r.roles].sort(), ['admin', 'apiwrite', 'engineering', 'operations'], `${r.method} ${r.path}`);
  }
  await store.close();
});
