/**
 * The interface's alarmProps row: a single object is accepted with a warning
 * (HTTP Warning header and a log line) before 2022.1, refused with a 400
 * naming the fix from 2022.1; single objects already stored become arrays
 * at startup. Each release is a real core on its own store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Store } from '../../../kernel/store/types.ts';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';

type Json = Record<string, unknown>;
const location = { ip: '10.0.0.9', port: 162, community: 'public', type: 'snmp', properties: {} };

function send(core: RunningCore, method: string, path: string, body?: unknown): Promise<JsonResponse> {
  return core.request(path, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
}

function warnings(core: RunningCore): Json[] {
  return core.logs.map((l) => JSON.parse(l) as Json).filter((l) => l['level'] === 'warn' && String(l['message']).includes('alarmProps'));
}

async function withCore(release: string, run: (core: RunningCore, store: Store) => Promise<void>): Promise<void> {
  const store = await openTestStore();
  const core = await startCore(store, { PLATFORM_RELEASE: release });
  try {
    await run(core, store);
  } finally {
    await core.close();
    await store.close();
  }
}

test('at 2021.2 a single object is accepted on create, update and import, stored as an array, with a Warning header and a log line', async () => {
  await withCore('2021.2', async (core, store) => {
    const attempts: Array<[string, string, unknown]> = [
      ['POST', '/profiles', { properties: { id: 'one', alarmProps: location } }],
      ['PUT', '/profiles/one', { properties: { alarmProps: { ...location, port: 1162 } } }],
      ['POST', '/profiles/import', { id: 'two', alarmProps: location }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await send(core, method, path, body);
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      assert.ok(Array.isArray(((res.body as Json)['data'] as Json)['alarmProps']), path);
      assert.match(res.headers.get('warning') ?? '', /^299 - ".*alarmProps as a single object is deprecated since 2021\.1 and removed in 2022\.1.*\[\{\.\.\.\}\].*"$/, path);
    }
    assert.deepEqual((await store.collection('iap_profiles').findById('one'))?.['alarmProps'], [{ ...location, port: 1162 }]);
    assert.deepEqual((await store.collection('iap_profiles').findById('two'))?.['alarmProps'], [location]);
    assert.equal(warnings(core).length, 3);
    assert.match(String(warnings(core)[0]!['message']), /^profile one: alarmProps as a single object is deprecated/);
    const array = await send(core, 'POST', '/profiles', { properties: { id: 'three', alarmProps: [location, location] } });
    assert.equal(array.status, 200);
    assert.equal(array.headers.get('warning'), null, 'an array is not warned about');
    assert.equal(warnings(core).length, 3);
  });
});

test('at 2022.1 a single object is refused with a 400 naming the fix, and nothing is stored or changed', async () => {
  await withCore('2022.1', async (core, store) => {
    assert.equal((await send(core, 'POST', '/profiles', { properties: { id: 'kept', alarmProps: [location] } })).status, 200);
    const attempts: Array<[string, string, unknown, string]> = [
      ['POST', '/profiles', { properties: { id: 'one', alarmProps: location } }, 'body.properties.alarmProps'],
      ['PUT', '/profiles/kept', { properties: { alarmProps: { ...location, port: 1 } } }, 'body.properties.alarmProps'],
      ['POST', '/profiles/import', { id: 'two', alarmProps: location }, 'body.alarmProps'],
    ];
    for (const [method, path, body, parameter] of attempts) {
      const res = await send(core, method, path, body);
      assert.equal(res.status, 400, path);
      const error = res.body as { message: string; code: string; details: Json[] };
      assert.match(error.message, /removed in 2022\.1 \(this platform is 2022\.1\); wrap it in an array, "alarmProps": \[\{\.\.\.\}\]/);
      assert.equal(error.code, 'VALIDATION_FAILED');
      assert.deepEqual(error.details, [{ parameter, message: 'must be an array of alarm locations; wrap the single object in an array' }]);
    }
    assert.equal(await store.collection('iap_profiles').count(null), 1);
    assert.deepEqual((await store.collection('iap_profiles').findById('kept'))?.['alarmProps'], [location]);
  });
});

test('before 2021.1 a single object is simply wrapped: it was not deprecated yet', async () => {
  await withCore('2020.2', async (core) => {
    const res = await send(core, 'POST', '/profiles', { properties: { id: 'old', alarmProps: location } });
    assert.equal(res.status, 200);
    assert.deepEqual(((res.body as Json)['data'] as Json)['alarmProps'], [location]);
    assert.equal(res.headers.get('warning'), null);
  });
});

test('a single object already stored becomes an array when the core starts, with a log line; arrays are left alone', async () => {
  const store = await openTestStore();
  await store.collection('iap_profiles').insertMany([
    { _id: 'legacy', id: 'legacy', isActive: true, alarmProps: location, uiProps: { description: 'UI' } },
    { _id: 'modern', id: 'modern', isActive: false, alarmProps: [location] },
  ]);
  const core = await startCore(store, { PLATFORM_RELEASE: '2022.1' });
  try {
    assert.deepEqual(await store.collection('iap_profiles').findById('legacy'), { _id: 'legacy', id: 'legacy', isActive: true, alarmProps: [location], uiProps: { description: 'UI' } });
    assert.deepEqual((await store.collection('iap_profiles').findById('modern'))?.['alarmProps'], [location]);
    assert.deepEqual(warnings(core).map((w) => w['message']), ['profile legacy: alarmProps migrated from a single object to an array']);
    assert.deepEqual(((await send(core, 'GET', '/profiles/legacy')).body as { profile: Json }).profile['alarmProps'], [location]);
  } finally {
    await core.close();
    await store.close();
  }
});
