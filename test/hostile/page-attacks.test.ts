/**
 * Pages of large documents, asked for by a caller who may only read. Jobs
 * grow to megabytes through their variables and task outputs, and Studio
 * workflows to the body limit, so whoever may write them can make a page of
 * 1,000 of them an answer of gigabytes. The core used to build such a page
 * whole: 600 jobs of 1 MB took it to 835 MB of memory and ended in a 500
 * (V8 cannot hold a string that long). Now a page past `search.maxPageMb`
 * is refused before a document is read, naming how many fit, and asking for
 * that many is served. A real core process on the embedded store, with the
 * budget at its smallest (16 MiB) and 40 documents of 0.75 MB of each kind.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SqliteStore } from '../../kernel/store/sqlite/store.ts';
import { newObjectId } from '../../kernel/store/ids.ts';
import { CORE_COLLECTIONS } from '../../core/src/store/collections.ts';
import { jobs } from '../fixtures/search-data.ts';
import { request } from '../helpers/core.ts';
import { crash, spawnCore } from '../helpers/process.ts';
import type { CoreProcess } from '../helpers/process.ts';
import { figure, tempDir } from '../faults/support.ts';
import { timingSleep } from '../helpers/wait.ts';
import { passwordAccount } from './support.ts';

const PASSWORD = 'page-attack-password';
const basic = (user: string): { authorization: string } => ({ authorization: `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}` });
const data = tempDir('page-attack');
const COUNT = 40;
const BLOB = 750_000;
let core: CoreProcess;

before(async () => {
  const store = SqliteStore.open({ dataDir: join(data.path, 'store'), collections: CORE_COLLECTIONS });
  const blob = 'v'.repeat(BLOB);
  await store.collection('jobs').insertMany(Array.from({ length: COUNT }, (_, i) => ({ ...jobs[0]!, _id: newObjectId(1_700_000_000_000 + i), name: `heavy-${i}`, status: 'complete', groups: [], variables: { blob } })));
  await store.collection('workflows').insertMany(Array.from({ length: COUNT }, (_, i) => ({ _id: newObjectId(), name: `heavy-${String(i).padStart(2, '0')}`, type: 'automation', description: blob, tasks: {}, transitions: {} })));
  await passwordAccount(store, 'reader', PASSWORD, ['OperationsManager', 'apiread']);
  await passwordAccount(store, 'studio-reader', PASSWORD, ['AutomationStudio', 'apiread']);
  await store.close();
  core = await spawnCore({ DATA_DIR: join(data.path, 'store'), ADMIN_PASSWORD: PASSWORD, SEARCH_MAX_PAGE_MB: '16' });
  await timingSleep(1000, 'the search thread opens its connection just after the core listens');
});
after(async () => {
  await crash(core);
  data.remove();
});

/** The core's resident memory, from its own metrics (process_resident_memory_bytes). */
async function rss(): Promise<number> {
  const res = await fetch(`${core.url}/metrics`, { headers: basic('admin') });
  const line = (await res.text()).split('\n').find((l) => l.startsWith('process_resident_memory_bytes '));
  assert.ok(line, 'the core reports its resident memory');
  return Number(line.split(' ')[1]);
}

/** A refusal names `limit` and the number that fits: about 16 MiB / 0.75 MB = 22. */
function fitsNamed(res: { status: number; body: unknown; headers: Headers }): number {
  assert.equal(res.status, 400, JSON.stringify(res.body).slice(0, 300));
  assert.equal(res.headers.get('x-error-code'), 'VALIDATION_FAILED');
  const text = JSON.stringify(res.body);
  assert.match(text, /"limit"/, 'the answer names the parameter');
  const named = /ask for at most (\d+) \(limit=\1\)/.exec(text);
  assert.ok(named, text);
  const fits = Number(named[1]);
  assert.ok(fits >= 20 && fits <= 22, `${fits} fit`);
  return fits;
}

test('a reader\'s page of every large job is refused, naming how many fit, and that many is served', { timeout: 120_000 }, async () => {
  // Warmed first, as a core that has served searches is: the thread's first page loads its code and caches.
  assert.equal((await request(`${core.url}/operations-manager/jobs?starts-with[name]=heavy-&limit=1`, { headers: basic('reader') })).status, 200);
  const before = await rss();
  // Several at once, as an attacker would send them: none builds its page.
  const refused = await Promise.all(Array.from({ length: 6 }, () => request(`${core.url}/operations-manager/jobs?starts-with[name]=heavy-&limit=${COUNT}`, { headers: basic('reader') })));
  const grew = (await rss()) - before;
  figure('six pages of 40 jobs of 0.75 MB asked for at once: the core\'s memory grew, MB', (grew / 1e6).toFixed(0));
  const fits = refused.map(fitsNamed)[0]!;
  figure('each refused, naming as the number that fits', String(fits));
  assert.ok(grew < 25e6, `the core's memory grew ${(grew / 1e6).toFixed(0)} MB for pages it refused`);

  const served = await request(`${core.url}/operations-manager/jobs?starts-with[name]=heavy-&limit=${fits}`, { headers: basic('reader') });
  assert.equal(served.status, 200);
  assert.equal((served.body as { data: unknown[] }).data.length, fits);
  fitsNamed(await request(`${core.url}/operations-manager/jobs?starts-with[name]=heavy-&limit=${fits + 1}`, { headers: basic('reader') }));
});

test('leaving the large field out of the answer lets the whole page through', async () => {
  const res = await request(`${core.url}/operations-manager/jobs?starts-with[name]=heavy-&limit=${COUNT}&exclude=variables`, { headers: basic('reader') });
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  const page = res.body as { data: Array<Record<string, unknown>> };
  assert.equal(page.data.length, COUNT);
  assert.ok(page.data.every((d) => !Object.hasOwn(d, 'variables')));
});

test('a list of large Studio workflows is bounded the same way', async () => {
  const fits = fitsNamed(await request(`${core.url}/automation-studio/automations?limit=${COUNT}`, { headers: basic('studio-reader') }));
  const served = await request(`${core.url}/automation-studio/automations?limit=${fits}`, { headers: basic('studio-reader') });
  assert.equal(served.status, 200);
  assert.equal(JSON.stringify(served.body).includes('heavy-'), true);
});
