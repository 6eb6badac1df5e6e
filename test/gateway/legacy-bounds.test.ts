/**
 * A legacy read that would answer every match is held whole in the gateway's
 * memory, so it answers at most `gateway.legacyMaxRecords` records: past that,
 * the legacy error names the count and the way out, and a read the caller
 * pages within the bound is served. Real gateway, real core, 30 jobs, a bound
 * of 10 and pages of 4. What one call reads is bounded in bytes too
 * (`gateway.legacyMaxMb`): 30 jobs of 0.75 MB, read four at a time by a
 * second gateway, pass its 16 MiB on the seventh page. The core refuses a
 * page past its own 16 MiB (`search.maxPageMb`); a third gateway, asking
 * for pages of 100, reads the same jobs in smaller pages instead.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../helpers/stores.ts';
import { request, startCore } from '../helpers/core.ts';
import type { RunningCore } from '../helpers/core.ts';
import { startGateway } from '../helpers/gateway.ts';
import type { RunningGateway } from '../helpers/gateway.ts';
import { jobs } from '../fixtures/search-data.ts';
import { newObjectId } from '../../kernel/store/ids.ts';

let core: RunningCore;
let gw: RunningGateway;
let small: RunningGateway;
let roomy: RunningGateway;
let headers: Record<string, string>;
const JOBS = 30;
const BLOB = 750_000;

before(async () => {
  const store = await openTestStore();
  await store.collection('jobs').insertMany(Array.from({ length: JOBS }, (_, i) => ({ ...jobs[i % jobs.length]!, _id: newObjectId(), name: `bounded-${i}` })));
  const blob = 'h'.repeat(BLOB);
  await store.collection('jobs').insertMany(Array.from({ length: JOBS }, (_, i) => ({ ...jobs[i % jobs.length]!, _id: newObjectId(), name: `heavy-${i}`, variables: { blob } })));
  core = await startCore(store, { SEARCH_MAX_PAGE_MB: '16' });
  gw = await startGateway(core.url, { GATEWAY_LEGACY_MAX_RECORDS: '10', GATEWAY_UPSTREAM_PAGE_MAX: '4' });
  small = await startGateway(core.url, { GATEWAY_LEGACY_MAX_MB: '16', GATEWAY_UPSTREAM_PAGE_MAX: '4' });
  roomy = await startGateway(core.url);
  headers = { authorization: `Bearer ${core.adminToken}`, 'content-type': 'application/json' };
});
after(async () => {
  await roomy.close();
  await small.close();
  await gw.close();
  await core.close();
});

const search = (options: Record<string, unknown>) => request(`${gw.url}/workflow_engine/jobs/search`, { method: 'POST', headers, body: JSON.stringify({ options: { query: { name: { $regex: '^bounded-' } }, ...options } }) });

test('every match past the bound is the legacy error naming the count, the bound and the way out', async () => {
  const res = await search({ limit: 0 });
  assert.equal(res.status, 500);
  assert.equal(typeof res.body, 'string', 'the legacy error is a bare JSON string');
  assert.match(res.body as string, /would answer 30 records; the gateway answers at most 10 at once \(gateway\.legacyMaxRecords\)\. Page with skip and limit, or narrow the query/);
  assert.equal(res.headers.get('x-error-code'), 'LEGACY_FAILED');
});

test('a limit above the bound is refused the same, and a read paged within it is served across several upstream pages', async () => {
  assert.equal((await search({ limit: 11 })).status, 500);
  const paged = await search({ limit: 10, skip: 10 });
  assert.equal(paged.status, 200, JSON.stringify(paged.body));
  const body = paged.body as { results: Array<{ name: string }>; total: number };
  assert.equal(body.results.length, 10);
  assert.equal(body.total, JOBS);
  const rest = await search({ limit: 0, skip: 25 });
  assert.equal(rest.status, 200, 'a skip that leaves fewer than the bound is served whole');
  assert.equal((rest.body as { results: unknown[] }).results.length, 5);
});

test('a read that would hold more than its bytes is the legacy error naming the bound; the same read paged within it is served', async () => {
  const heavy = (options: Record<string, unknown>) => request(`${small.url}/workflow_engine/jobs/search`, { method: 'POST', headers, body: JSON.stringify({ options: { query: { name: { $regex: '^heavy-' } }, ...options } }) });
  const res = await heavy({ limit: 0 });
  assert.equal(res.status, 500);
  assert.match(res.body as string, /^This call would read more than 16 MiB from the upstream; the gateway holds at most 16 MiB for one call \(gateway\.legacyMaxMb\)\. Page with skip and limit, or narrow the query$/);
  assert.equal(res.headers.get('x-error-code'), 'LEGACY_FAILED');
  const paged = await heavy({ limit: 12, skip: 6 });
  assert.equal(paged.status, 200, String(paged.body).slice(0, 200));
  assert.equal((paged.body as { results: unknown[] }).results.length, 12);
  // The gateway still reaches its upstream: the abandoned answer closed its own socket and no other.
  assert.equal((await search({ limit: 10 })).status, 200);
});

test('a page the core refuses as too large is read again in smaller pages: the legacy caller gets every record', async () => {
  const res = await request(`${roomy.url}/workflow_engine/jobs/search`, { method: 'POST', headers, body: JSON.stringify({ options: { query: { name: { $regex: '^heavy-' } }, limit: 0 } }) });
  assert.equal(res.status, 200, String(res.body).slice(0, 300));
  const body = res.body as { results: Array<{ name: string; variables: { blob: string } }>; total: number };
  assert.equal(body.total, JOBS);
  assert.equal(new Set(body.results.map((j) => j.name)).size, JOBS);
  assert.ok(body.results.every((j) => j.variables.blob.length === BLOB));
});
