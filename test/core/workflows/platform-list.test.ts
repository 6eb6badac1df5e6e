/**
 * `GET /automation-studio/workflows`, the platform's getWorkflows, over HTTP
 * on the real core: the bracket filters its clients send (`equals[name]=`),
 * the generic list parameters, and the platform's page keys (ipctl's 2023.2
 * fixture: items, skip, limit, total, count, end, previous, next).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, newVariable, workflow } from '../../helpers/engine.ts';
import { makeUser, role } from '../../helpers/users.ts';

type Page = { items: Array<{ _id: string; name: string }>; skip: number; limit: number; total: number; count: number; end: number; previous: string | null; next: string | null };

let core: RunningCore;
const NAMES = ['Alpha Deploy', 'Alpha Backup', 'Beta Deploy', 'Gamma Audit', 'Delta Audit'];
before(async () => {
  core = await startCore(await openTestStore());
  for (const name of NAMES) await createWorkflow(core, workflow(name, { a: newVariable('x', 1) }, [['workflow_start', 'a'], ['a', 'workflow_end']]));
});
after(() => core.close());

const list = async (query: string): Promise<{ status: number; body: unknown }> => core.request(`/automation-studio/workflows${query}`);

test('equals[name]= finds one workflow by its exact name, answering the platform page keys', async () => {
  const res = await list('?equals[name]=Beta%20Deploy');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const page = res.body as Page;
  assert.deepEqual(Object.keys(page).sort(), ['count', 'end', 'items', 'limit', 'next', 'previous', 'skip', 'total']);
  assert.equal(page.total, 1);
  assert.equal(page.items[0]!.name, 'Beta Deploy');
  assert.match(page.items[0]!._id, /^[0-9a-f-]{36}$/);
  assert.deepEqual({ skip: page.skip, limit: page.limit, count: page.count, end: page.end, previous: page.previous, next: page.next }, { skip: 0, limit: 25, count: 1, end: 1, previous: null, next: null });
});

test('an equals[name] that names no workflow answers an empty page, not every workflow', async () => {
  const page = (await list('?equals[name]=Nope')).body as Page;
  assert.equal(page.total, 0);
  assert.deepEqual(page.items, []);
});

test('starts-with[name] and contains[name] filter, and the pages say where they are', async () => {
  const alpha = (await list('?starts-with[name]=Alpha')).body as Page;
  assert.deepEqual(alpha.items.map((w) => w.name), ['Alpha Backup', 'Alpha Deploy']);
  const audits = (await list('?contains[name]=Audit&limit=1&skip=1')).body as Page;
  assert.equal(audits.total, 2);
  assert.deepEqual({ count: audits.count, end: audits.end, previous: audits.previous, next: audits.next }, { count: 1, end: 2, previous: '0', next: null });
  const first = (await list('?limit=2')).body as Page;
  assert.deepEqual({ total: first.total, end: first.end, next: first.next, previous: first.previous }, { total: 5, end: 2, next: '2', previous: null });
});

test('the generic list parameters work too (equals/equalsField, sort, order)', async () => {
  const page = (await list('?equals=Gamma%20Audit&equalsField=name')).body as Page;
  assert.deepEqual(page.items.map((w) => w.name), ['Gamma Audit']);
  const desc = (await list('?sort=name&order=-1&limit=1')).body as Page;
  assert.equal(desc.items[0]!.name, 'Gamma Audit');
});

test('a filter on a field that is not searchable, an unknown parameter, or a repeated filter is a 400 naming it', async () => {
  for (const [query, named] of [['?equals[tasks]=x', 'equals[tasks]'], ['?colour=red', 'colour'], ['?equals[name]=a&equals[name]=b', 'equals[name]'], ['?limit=5000', 'limit']] as const) {
    const res = await list(query);
    assert.equal(res.status, 400, query);
    assert.match(JSON.stringify(res.body), new RegExp(named.replace(/[[\]]/g, '\\$&')), query);
  }
});

test('an attempt to reach a prototype through the bracket field is refused, not searched', async () => {
  const res = await list('?equals[__proto__]=x');
  assert.equal(res.status, 400);
});

test('reading needs an Automation Studio read role', async () => {
  const none = await makeUser(core, 'no-studio');
  assert.equal((await core.request('/automation-studio/workflows', { token: none.token })).status, 403);
  const reader = await makeUser(core, 'studio-reader', { roles: [role('AutomationStudio', 'apiread')] });
  assert.equal((await core.request('/automation-studio/workflows', { token: reader.token })).status, 200);
  assert.equal((await core.request('/automation-studio/workflows', { token: null })).status, 401);
});
