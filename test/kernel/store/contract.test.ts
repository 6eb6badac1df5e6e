/**
 * The repository contract both stores must keep. Runs on SQLite always and on
 * MongoDB when MONGO_URL is set (reported as skipped otherwise).
 */
import { TEST_LIMITS } from '../../helpers/search-fixture.ts';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { jobs as jobType } from '../../../kernel/search/fields.ts';
import { parseSearch } from '../../../kernel/search/parse-search.ts';
import { DuplicateKeyError } from '../../../kernel/store/types.ts';
import type { Store } from '../../../kernel/store/types.ts';
import { jobId, jobs, label } from '../../fixtures/search-data.ts';
import { MONGO_SKIP_REASON, storeFactories } from '../../helpers/stores.ts';


if (!process.env['MONGO_URL']) console.log(`# ${MONGO_SKIP_REASON}`);

for (const factory of storeFactories()) {
  describe(`store contract on ${factory.name}`, { skip: factory.skip ?? false }, () => {
    let store: Store;
    before(async () => {
      store = await factory.open();
    });
    after(async () => {
      await store.close();
    });

    test('insertMany stores every document and findById reads each back unchanged', async () => {
      await store.collection('jobs').insertMany(jobs);
      for (const doc of jobs) assert.deepEqual(await store.collection('jobs').findById(doc['_id'] as string), doc);
      assert.equal(await store.collection('jobs').count(null), jobs.length);
    });

    test('findByIds returns the known ids and skips the unknown', async () => {
      const found = await store.collection('jobs').findByIds([jobId(2), 'f'.repeat(24), jobId(4)]);
      assert.deepEqual(found.map((d) => label(d['_id'])).sort(), ['J2', 'J4']);
    });

    test('findById of an unknown id is null', async () => {
      assert.equal(await store.collection('jobs').findById('e'.repeat(24)), null);
    });

    test('a duplicate _id is refused with DuplicateKeyError and changes nothing', async () => {
      const copy = { ...jobs[0]!, name: 'changed' };
      await assert.rejects(store.collection('jobs').insertOne(copy), DuplicateKeyError);
      assert.equal((await store.collection('jobs').findById(jobId(1)))!['name'], 'Port Turn-Up');
    });

    test('insertMany with one duplicate stores none of the batch', async () => {
      const fresh = { ...jobs[0]!, _id: 'd'.repeat(24) };
      const batch = [fresh, { ...jobs[1]! }];
      await assert.rejects(store.collection('jobs').insertMany(batch), DuplicateKeyError);
      assert.equal(await store.collection('jobs').findById('d'.repeat(24)), null);
      assert.equal(await store.collection('jobs').count(null), jobs.length);
    });

    test('a unique index refuses a second account with the same username and provenance', async () => {
      const accounts = store.collection('accounts');
      await accounts.insertOne({ _id: 'a'.repeat(24), username: 'dup', provenance: 'Local AAA' });
      await assert.rejects(accounts.insertOne({ _id: 'b'.repeat(24), username: 'dup', provenance: 'Local AAA' }), DuplicateKeyError);
      await accounts.insertOne({ _id: 'c'.repeat(24), username: 'dup', provenance: 'LDAP' });
      assert.equal(await accounts.count(null), 2);
    });

    test('search answers the page in order and the exact total of the same filter', async () => {
      const req = parseSearch(jobType, 'not-in[status]=complete&sort=metrics.start_time&order=-1&skip=1&limit=2', TEST_LIMITS);
      const result = await store.collection('jobs').search(req);
      assert.deepEqual(result.docs.map((d) => label(d['_id'])), ['J4', 'J3']);
      assert.equal(result.total, 4);
      assert.equal(await store.collection('jobs').count(req.where), 4);
    });

    test('search past the end answers no documents and the total', async () => {
      const result = await store.collection('jobs').search(parseSearch(jobType, 'skip=50', TEST_LIMITS));
      assert.deepEqual(result, { docs: [], total: jobs.length });
    });

    test('findPage answers the same page as search, in the same order, without a total', async () => {
      for (const query of ['not-in[status]=complete&sort=metrics.start_time&order=-1&skip=1&limit=2', 'sort=name&order=1', 'contains[description]=firewall', 'skip=50', 'limit=0', 'q={"or":[{"equals":{"status":"error"}},{"starts-with":{"name":"Port"}}]}&sort=_id&order=-1']) {
        const req = parseSearch(jobType, query, TEST_LIMITS);
        assert.deepEqual(await store.collection('jobs').findPage(req), (await store.collection('jobs').search(req)).docs, query);
      }
    });

    test('findIds gives at most limit ids of what the filter selects, without counting the rest', async () => {
      const { where } = parseSearch(jobType, 'not-in[status]=complete', TEST_LIMITS);
      const expected = jobs.filter((j) => j['status'] !== 'complete').map((j) => label(j['_id'])).sort();
      const all = await store.collection('jobs').findIds(where, 1000);
      assert.deepEqual(all.map(label).sort(), expected);
      const some = await store.collection('jobs').findIds(where, 2);
      assert.equal(some.length, 2);
      for (const id of some) assert.ok(expected.includes(label(id)), label(id));
      assert.deepEqual(await store.collection('jobs').findIds(where, 0), []);
    });

    test('text search uses the declared text index', async () => {
      const result = await store.collection('jobs').search(parseSearch(jobType, 'contains[description]=firewall', TEST_LIMITS));
      assert.deepEqual(result.docs.map((d) => label(d['_id'])), ['J6']);
    });

    test('replaceOne changes the document and what searches see, including text', async () => {
      const jobsCol = store.collection('jobs');
      const doc = { ...(await jobsCol.findById(jobId(6)))!, status: 'error', description: 'Audit routers' };
      assert.equal(await jobsCol.replaceOne(doc), true);
      assert.deepEqual(await jobsCol.findById(jobId(6)), doc);
      const byStatus = await jobsCol.search(parseSearch(jobType, 'equals[status]=error', TEST_LIMITS));
      assert.deepEqual(byStatus.docs.map((d) => label(d['_id'])), ['J3', 'J6']);
      const byText = await jobsCol.search(parseSearch(jobType, 'contains[description]=firewall', TEST_LIMITS));
      assert.equal(byText.total, 0);
    });

    test('replaceOne of an unknown id changes nothing and says so', async () => {
      assert.equal(await store.collection('jobs').replaceOne({ _id: 'e'.repeat(24), name: 'ghost' }), false);
      assert.equal(await store.collection('jobs').findById('e'.repeat(24)), null);
    });

    test('deleteOne removes the document from reads, searches and text search', async () => {
      const jobsCol = store.collection('jobs');
      assert.equal(await jobsCol.deleteOne(jobId(6)), true);
      assert.equal(await jobsCol.deleteOne(jobId(6)), false);
      assert.equal(await jobsCol.findById(jobId(6)), null);
      const byText = await jobsCol.search(parseSearch(jobType, 'contains[description]=audit', TEST_LIMITS));
      assert.equal(byText.total, 0);
      assert.equal(await jobsCol.count(null), jobs.length - 1);
    });

    test('replaceIfRev applies a change made from the current revision and refuses one made from an old one', async () => {
      const col = store.collection('workflows');
      await col.insertOne({ _id: 'rev-doc', name: 'rev', _rev: 0 });
      assert.equal(await col.replaceIfRev({ _id: 'rev-doc', name: 'first', _rev: 1 }, 0), true);
      assert.equal(await col.replaceIfRev({ _id: 'rev-doc', name: 'second', _rev: 1 }, 0), false);
      assert.deepEqual(await col.findById('rev-doc'), { _id: 'rev-doc', name: 'first', _rev: 1 });
      assert.equal(await col.replaceIfRev({ _id: 'missing', name: 'x', _rev: 1 }, 0), false);
    });

    test('a batch applies every write, and nothing when its leading revision check fails', async () => {
      const ok = await store.batch([
        { op: 'replaceIfRev', collection: 'workflows', doc: { _id: 'rev-doc', name: 'third', _rev: 2 }, expectedRev: 1 },
        { op: 'insert', collection: 'workflows', doc: { _id: 'batch-1', name: 'b1' } },
        { op: 'replace', collection: 'workflows', doc: { _id: 'batch-1', name: 'b1 again' } },
      ]);
      assert.equal(ok, true);
      assert.equal((await store.collection('workflows').findById('batch-1'))!['name'], 'b1 again');
      const refused = await store.batch([
        { op: 'replaceIfRev', collection: 'workflows', doc: { _id: 'rev-doc', name: 'stale', _rev: 2 }, expectedRev: 1 },
        { op: 'insert', collection: 'workflows', doc: { _id: 'batch-2', name: 'b2' } },
      ]);
      assert.equal(refused, false);
      assert.equal(await store.collection('workflows').findById('batch-2'), null);
      assert.equal((await store.collection('workflows').findById('rev-doc'))!['name'], 'third');
    });

    test('increment counts from 1 and answers every count once, even when called at once', async () => {
      const counts = await Promise.all(Array.from({ length: 20 }, () => store.increment('login_attempts', 'u:racer', 10_000, 1_000)));
      assert.deepEqual([...counts].sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
      assert.deepEqual(await store.collection('login_attempts').findById('u:racer'), { _id: 'u:racer', count: 20, expiresAt: 10_000 });
    });

    test('increment starts a counter past its expiry again at 1 and drops the other expired ones', async () => {
      assert.equal(await store.increment('login_attempts', 'u:old', 2_000, 1_000), 1);
      assert.equal(await store.increment('login_attempts', 'u:old', 2_000, 1_500), 2);
      assert.equal(await store.increment('login_attempts', 'u:other', 2_500, 1_500), 1);
      // At 2,000 'u:old' has expired: it starts again, with the new expiry; 'u:other' is still live.
      assert.equal(await store.increment('login_attempts', 'u:old', 9_000, 2_000), 1);
      assert.equal((await store.collection('login_attempts').findById('u:other'))?.['count'], 1);
      await store.increment('login_attempts', 'u:late', 9_000, 3_000);
      assert.equal(await store.collection('login_attempts').findById('u:other'), null);
      assert.deepEqual(await store.collection('login_attempts').findById('u:old'), { _id: 'u:old', count: 1, expiresAt: 9_000 });
    });

    test('a batch deletes documents by id, an unknown id deleting nothing, and the deleted are gone from searches and counts', async () => {
      await store.collection('workflows').insertMany([{ _id: 'del-1', name: 'd1' }, { _id: 'del-2', name: 'd2' }, { _id: 'del-3', name: 'd3' }]);
      const before = await store.collection('workflows').count(null);
      const ok = await store.batch([
        { op: 'delete', collection: 'workflows', id: 'del-1' },
        { op: 'delete', collection: 'workflows', id: 'no-such-doc' },
        { op: 'delete', collection: 'workflows', id: 'del-3' },
      ]);
      assert.equal(ok, true);
      assert.deepEqual((await store.collection('workflows').findByIds(['del-1', 'del-2', 'del-3'])).map((d) => d['_id']), ['del-2']);
      assert.equal(await store.collection('workflows').count(null), before - 2);
    });

    test('a new store has every declared index', async () => {
      for (const name of ['jobs', 'tasks', 'accounts'] as const) {
        const status = await store.collection(name).indexStatus();
        assert.deepEqual(status, { missing: [], misnamed: [], external: [], indexed: true }, name);
      }
    });
  });
}
