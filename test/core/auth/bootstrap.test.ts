/**
 * What a start does to the store: built-in roles made from the routes, the
 * admins group, the first administrator (with a generated password shown
 * once when none is configured), and the Platform.admin migration.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCoreApp } from '../../../core/src/app.ts';
import { ADMINS_GROUP } from '../../../core/src/auth/bootstrap.ts';
import { PLATFORM_ADMIN_REPLACEMENTS } from '../../../core/src/auth/roles.ts';
import { roleId } from '../../../kernel/store/ids.ts';
import { createLogger } from '../../../kernel/logger.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { request, startCore, testConfig } from '../../helpers/core.ts';

const PLATFORM_ADMIN = roleId('Platform', 'admin');
const REPLACEMENTS = PLATFORM_ADMIN_REPLACEMENTS.map((p) => roleId(p, 'admin'));
const silent = createLogger({ level: 'error', service: 'test', silent: true });

test('holders of Platform.admin are given its thirteen replacement roles on start', async () => {
  const store = await openTestStore();
  await store.collection('accounts').insertOne({ _id: 'a'.repeat(24), username: 'legacy-admin', provenance: 'Local AAA', assignedRoles: [{ roleId: PLATFORM_ADMIN }], memberOf: [] });
  await store.collection('groups').insertOne({ _id: 'b'.repeat(24), name: 'legacy-group', provenance: 'Local AAA', assignedRoles: [{ roleId: PLATFORM_ADMIN }, { roleId: roleId('Health', 'admin') }], memberOf: [] });
  await store.collection('accounts').insertOne({ _id: 'c'.repeat(24), username: 'plain-user', provenance: 'Local AAA', assignedRoles: [], memberOf: [] });
  const core = createCoreApp({ store, config: await testConfig(), logger: silent });
  await core.bootstrap({ announce: () => undefined });
  await core.bootstrap({ announce: () => undefined });

  const held = async (collection: 'accounts' | 'groups', id: string): Promise<string[]> =>
    ((await store.collection(collection).findById(id))!['assignedRoles'] as Array<{ roleId: string }>).map((r) => r.roleId);
  assert.deepEqual((await held('accounts', 'a'.repeat(24))).sort(), [PLATFORM_ADMIN, ...REPLACEMENTS].sort());
  const group = await held('groups', 'b'.repeat(24));
  assert.deepEqual([...group].sort(), [PLATFORM_ADMIN, ...REPLACEMENTS].sort(), 'no role is given twice, even over two starts');
  assert.deepEqual(await held('accounts', 'c'.repeat(24)), []);
  for (const id of REPLACEMENTS) assert.ok(await store.collection('roles').findById(id), `replacement role ${id} exists`);
  await store.close();
});

test('the first start creates the administrator with a generated password, shown once', async () => {
  const store = await openTestStore();
  const config = await testConfig({ ADMIN_PASSWORD: '', ADMIN_USERNAME: 'root' });
  const shown: string[] = [];
  const core = createCoreApp({ store, config, logger: silent });
  await core.bootstrap({ announce: (t) => shown.push(t) });
  await core.bootstrap({ announce: (t) => shown.push(t) });
  assert.equal(shown.length, 1);
  const password = /password: (\S+)/.exec(shown[0]!)![1]!;
  const account = await core.auth.findAccount('root');
  assert.ok(account);
  assert.notEqual(account['passwordHash'], password);
  assert.match(String(account['passwordHash']), /^scrypt\$/);
  await store.close();
});

test('the administrator may do everything through the admins group, which holds every application\'s admin role', async () => {
  const store = await openTestStore();
  const running = await startCore(store);
  const who = await running.request('/whoami');
  const body = who.body as { groups: Array<{ name: string }>; methods: Record<string, string[]>; roles: string[] };
  assert.deepEqual(body.groups.map((g) => g.name), [ADMINS_GROUP]);
  assert.ok(body.methods['OperationsManager']!.includes('getJobs'));
  assert.ok(body.roles.includes(roleId('OperationsManager', 'admin')));
  for (const id of REPLACEMENTS) assert.ok(body.roles.includes(id));
  assert.ok(!body.roles.includes(PLATFORM_ADMIN), 'the obsolete role is not given to new administrators');
  await running.close();
  await store.close();
});

test('the health of the server reports the release in three parts, and needs credentials', async () => {
  const store = await openTestStore();
  const running = await startCore(store, { PLATFORM_RELEASE: '2021.2' });
  const res = await running.request('/health/server');
  const body = res.body as { release: string; version: string; uptime: number; store: { kind: string; reachable: boolean } };
  assert.equal(body.release, '2021.2.0');
  assert.match(body.version, /^\d+\.\d+\.\d+/);
  assert.ok(body.uptime >= 0);
  assert.deepEqual(body.store, { kind: 'sqlite', reachable: true });
  assert.equal((await request(`${running.url}/health/server`)).status, 401);
  assert.equal((await request(`${running.url}/health/applications`)).status, 401);
  const apps = (await running.request('/health/applications')).body as { results: Array<{ id: string; state: string }>; total: number };
  assert.ok(apps.results.some((a) => a.id === 'OperationsManager' && a.state === 'RUNNING'));
  assert.equal(apps.total, apps.results.length);
  assert.deepEqual((await request(`${running.url}/health/live`)).body, { status: 'ok' });
  await running.close();
  await store.close();
});
