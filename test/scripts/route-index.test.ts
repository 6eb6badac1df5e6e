/**
 * The route index (scripts/route-index.ts, docs/route-index.md): the
 * committed file is what the script makes, and the file it names for each
 * core route is the one that declared it, computed paths included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { loadConfig } from '../../config/load.ts';
import { routeHelper } from '../../kernel/http/route.ts';
import { coreRouteTable } from '../../scripts/openapi-documents.ts';
import { committedIndex, INDEX_FILE } from '../../scripts/route-index.ts';

test('docs/route-index.md is what npm run route-index makes', async () => {
  assert.equal(readFileSync(INDEX_FILE, 'utf8'), await committedIndex(), 'run npm run route-index and commit docs/route-index.md');
});

test('a route records the file that declared it, relative to the repository, not the file of its helper', () => {
  const route = routeHelper({ provenance: 'Test', shape: 'plain' });
  const declared = route({ method: 'GET', path: '/x', name: 'getX', roles: 'public', description: 'x', answer: null, input: {}, handle: async () => ({ body: null }) });
  assert.equal(declared.declaredIn, 'test/scripts/route-index.test.ts');
});

test('reading the declaring file leaves the stack trace settings as they were', () => {
  const limit = Error.stackTraceLimit;
  const prepare = Error.prepareStackTrace;
  routeHelper({ provenance: 'Test', shape: 'plain' })({ method: 'GET', path: '/y', name: 'getY', roles: 'public', description: 'y', answer: null, input: {}, handle: async () => ({ body: null }) });
  assert.equal(Error.stackTraceLimit, limit);
  assert.equal(Error.prepareStackTrace, prepare);
  const stack = (function deep(n: number): string { return n === 0 ? String(new Error('x').stack) : deep(n - 1); })(3);
  assert.ok(stack.split('\n').length > 3, stack);
});

test('every core route names the existing file that called its helper, computed paths and names included', async () => {
  const routes = coreRouteTable(await loadConfig({ env: {} }));
  // Not the kernel's helper, not the app that gathers the tables: the module file whose code declared the record.
  const gatherers = ['kernel/http/route.ts', 'core/src/app.ts'];
  const callsAHelper = (file: string) => /\b\w*[rR]oute[<(]/.test(readFileSync(file, 'utf8'));
  const wrong = routes.filter((r) => !r.declaredIn || !existsSync(r.declaredIn) || gatherers.includes(r.declaredIn) || !callsAHelper(r.declaredIn));
  assert.deepEqual(wrong.map((r) => `${r.method} ${r.path} ${r.name} ${r.declaredIn}`), []);
  // Built from lists of actions (`/operations-manager/jobs/${action}`, `${action}Task`): a grep finds neither, the index does.
  const declaredIn = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)?.declaredIn;
  assert.equal(declaredIn('POST', '/operations-manager/jobs/cancel'), 'core/src/operations-manager/control-routes.ts');
  assert.equal(declaredIn('POST', '/operations-manager/tasks/:id/claim'), 'core/src/operations-manager/control-routes.ts');
  assert.equal(declaredIn('GET', '/operations-manager/jobs'), 'core/src/operations-manager/search-routes.ts');
});

test('the index lists every core route, gateway route and legacy operation by method and path, with its file', async () => {
  const index = readFileSync(INDEX_FILE, 'utf8');
  const config = await loadConfig({ env: {} });
  for (const r of coreRouteTable(config)) {
    assert.ok(index.includes(`| ${r.method} | \`${r.path}\``) && index.includes(`\`${r.name}\``), `${r.method} ${r.path} is not in the index`);
  }
  for (const line of ['| GET | `/gateway/audit/report` |', '| POST | `/workflow_engine/jobs/finish_task/:job_id/:task_id` | `returnCompletedTaskData` | workflow-engine | `mappings/workflow-engine.json` |']) {
    assert.ok(index.includes(line), `missing: ${line}`);
  }
});
