/**
 * MongoDB-specific behaviour of the MongoDB store: the estimatedDocumentCount
 * path, index status and build, duplicate-key rollback of a batch. The shared
 * store contract lives in contract.test.ts. The server tests need MONGO_URL
 * (there is no server in the default CI); the parts that need no server, the
 * index comparison, URL handling and a failing connect, always run.
 */
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import { jobs as jobType, tasks as taskType } from '../../../kernel/search/fields.ts';
import { workflows as workflowType } from '../../../core/src/store/doc-types.ts';
import { duplicateKeyName } from '../../../kernel/store/mongo/errors.ts';
import { planIndexes, readListedIndex } from '../../../kernel/store/mongo/indexes.ts';
import { MongoStore } from '../../../kernel/store/mongo/store.ts';
import { parseMongoUrl, redact, urlHasOption } from '../../../kernel/store/mongo/url.ts';
import { DuplicateKeyError } from '../../../kernel/store/types.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const MONGO_URL = process.env['MONGO_URL'];
const SKIP_REASON = 'MONGO_URL is not set: the MongoDB store tests did not run';
const jobIndexes = jobType.indexes;
const listed = (name: string, key: Record<string, unknown>, extra: Record<string, unknown> = {}) => readListedIndex({ v: 2, name, key, ...extra });
const declaredAsListed = jobIndexes.map((ix) =>
  ix.key['description'] === 'text'
    ? listed(ix.name, { _fts: 'text', _ftsx: 1 }, { weights: { description: 1 }, default_language: 'english' })
    : listed(ix.name, ix.key),
);

test('index plan: a new collection misses every declared index', () => {
  const plan = planIndexes(jobIndexes, [listed('_id_', { _id: 1 })]);
  assert.deepEqual(plan.status, { missing: [...jobIndexes], misnamed: [], external: [], indexed: false });
  assert.deepEqual(plan.create, [...jobIndexes]);
  assert.deepEqual(plan.drop, []);
});

test('index plan: declared indexes under their names, text index by weights, _id_ not external', () => {
  const plan = planIndexes(jobIndexes, [listed('_id_', { _id: 1 }), ...declaredAsListed]);
  assert.deepEqual(plan.status, { missing: [], misnamed: [], external: [], indexed: true });
  assert.deepEqual(plan.create, []);
});

test('index plan: a misnamed index is dropped and recreated; foreign ones are external', () => {
  const existing = declaredAsListed.map((ix) => (ix.name === 'name_1__id_1' ? { ...ix, name: 'by_name' } : ix.name === 'description_text' ? { ...ix, name: 'desc' } : ix));
  existing.push(listed('created_by_1', { created_by: 1 }), listed('h', { type: 'hashed' }));
  const plan = planIndexes(jobIndexes, existing);
  assert.deepEqual(plan.status.misnamed.map((ix) => ix.name), ['name_1__id_1', 'description_text']);
  assert.deepEqual(plan.status.missing, []);
  assert.deepEqual(plan.status.external, [{ name: 'created_by_1', key: { created_by: 1 } }, { name: 'h', key: { type: 1 } }]);
  assert.equal(plan.status.indexed, false);
  assert.deepEqual(plan.drop, ['by_name', 'desc']);
  assert.deepEqual(plan.create.map((ix) => ix.name), ['name_1__id_1', 'description_text']);
});

test('index plan: direction, order, uniqueness and text fields must all agree', () => {
  const wrongDirection = listed('metrics.start_time_-1__id_-1', { 'metrics.start_time': 1, _id: -1 });
  const textOnOtherField = listed('name_text', { _fts: 'text', _ftsx: 1 }, { weights: { name: 1 } });
  const plan = planIndexes(jobIndexes, [wrongDirection, textOnOtherField]);
  assert.ok(plan.status.missing.some((ix) => ix.name === 'metrics.start_time_-1__id_-1'));
  assert.ok(plan.status.missing.some((ix) => ix.name === 'description_text'));
  assert.deepEqual(plan.status.external, [
    { name: 'metrics.start_time_-1__id_-1', key: { 'metrics.start_time': 1, _id: -1 } },
    { name: 'name_text', key: { name: 'text' } },
  ]);
  // It holds the declared name with another definition, so it must go before the create.
  assert.deepEqual(plan.drop, ['metrics.start_time_-1__id_-1']);

  const workflows = workflowType.indexes;
  const notUnique = planIndexes(workflows, [listed('name_1', { name: 1 })]);
  assert.deepEqual(notUnique.status.missing, [...workflows]);
  assert.deepEqual(planIndexes(workflows, [listed('name_1', { name: 1.0 }, { unique: true })]).status.indexed, true);
});

test('index plan: a foreign text index blocks the declared one (one per collection) instead of failing the build', () => {
  const foreign = listed('name_text', { _fts: 'text', _ftsx: 1 }, { weights: { name: 1 } });
  const plan = planIndexes(jobIndexes, [...declaredAsListed.filter((ix) => ix.name !== 'description_text'), foreign]);
  assert.deepEqual(plan.status.missing.map((ix) => ix.name), ['description_text'], 'still reported missing');
  assert.deepEqual(plan.blocked.map((b) => [b.index.name, b.by]), [['description_text', 'name_text']]);
  assert.deepEqual(plan.create, [], 'nothing the server would refuse is attempted');
  assert.deepEqual(plan.replace, []);
});

test('index plan: only a replaced index is dropped, right before its replacement, and can be rebuilt as it was', () => {
  const existing = declaredAsListed.filter((ix) => ix.name !== 'status_1_name_1__id_1').map((ix) => (ix.name === 'name_1__id_1' ? listed('by_name', { name: 1, _id: 1 }, { collation: { locale: 'en' } }) : ix));
  const plan = planIndexes(jobIndexes, existing);
  assert.deepEqual(plan.create.map((ix) => ix.name), ['status_1_name_1__id_1', 'name_1__id_1']);
  assert.deepEqual(plan.replace.map((r) => [r.index.name, r.drop.map((d) => d.name)]), [['name_1__id_1', ['by_name']]]);
  assert.deepEqual(plan.replace[0]!.drop[0]!.raw['collation'], { locale: 'en' }, 'what is needed to put it back');
});

test('URL handling: database default, percent-decoding, options and password redaction', () => {
  assert.equal(parseMongoUrl('mongodb://h1:27017,h2:27018/?replicaSet=rs').database, 'iap');
  assert.equal(parseMongoUrl('mongodb://h1').database, 'iap');
  const parts = parseMongoUrl('mongodb+srv://ann:p%40ss%2Fw@cluster.example.com/my%20db?serverSelectionTimeoutMS=100');
  assert.deepEqual([parts.hosts, parts.database], ['cluster.example.com', 'my db']);
  assert.equal(urlHasOption(parts, 'serverselectiontimeoutms'), true);
  assert.equal(urlHasOption(parts, 'replicaSet'), false);
  assert.equal(redact('auth p@ss/w and p%40ss%2Fw failed', parts), 'auth *** and *** failed');
  assert.throws(() => parseMongoUrl('postgres://h/db'), /must start with mongodb:\/\//);
  assert.equal(duplicateKeyName('E11000 duplicate key error collection: iap.jobs index: _id_ dup key: { _id: "a" }'), '_id');
  assert.equal(duplicateKeyName('E11000 duplicate key error collection: iap.workflows index: name_1 dup key: { name: "a" }'), 'unique key');
});

test('connect fails fast with an error naming the host but not the password', async () => {
  const started = Date.now();
  await assert.rejects(MongoStore.connect('mongodb://ann:Sup3rSecret@127.0.0.1:1/db?serverSelectionTimeoutMS=300', CORE_COLLECTIONS), (err: Error) => {
    assert.match(err.message, /127\.0\.0\.1:1/);
    assert.match(err.message, /not reachable/);
    assert.doesNotMatch(err.message, /Sup3rSecret/);
    return true;
  });
  assert.ok(Date.now() - started < 5_000, 'connect did not honour serverSelectionTimeoutMS');
});

/** The same URL with another database, so each run starts empty and can drop everything. */
function withDatabase(url: string, database: string): string {
  const m = /^(mongodb(?:\+srv)?:\/\/[^/?]*)(?:\/[^?]*)?(\?.*)?$/i.exec(url);
  if (!m) throw new Error('MONGO_URL is not a mongodb:// URL');
  return `${m[1]}/${database}${m[2] ?? ''}`;
}

async function serverTests(t: TestContext, url: string): Promise<void> {
  const dbName = `iap_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new MongoClient(withDatabase(url, dbName), { serverSelectionTimeoutMS: 2_000 });
  const db: Db = admin.db(dbName);
  let store = await MongoStore.connect(withDatabase(url, dbName), CORE_COLLECTIONS);
  t.after(async () => {
    await store.close();
    await db.dropDatabase();
    await admin.close();
  });
  const jobs = store.collection('jobs');
  const status = jobType.fields.get('status')!;
  const name = jobType.fields.get('name')!;

  await t.test('new collections get their declared indexes at connect', async () => {
    for (const c of ['jobs', 'tasks', 'accounts'] as const) {
      assert.deepEqual(await store.collection(c).indexStatus(), { missing: [], misnamed: [], external: [], indexed: true });
    }
  });

  await t.test('documents keep their string _id and come back as plain JSON', async () => {
    await jobs.insertOne({ _id: 'j1', name: 'alpha', status: 'running', when: new Date(0), gone: undefined, metrics: { progress: 1.5 } });
    assert.deepEqual(await jobs.findById('j1'), { _id: 'j1', name: 'alpha', status: 'running', when: '1970-01-01T00:00:00.000Z', metrics: { progress: 1.5 } });
    assert.equal(await jobs.findById('nope'), null);
    await assert.rejects(jobs.insertOne({ _id: 'j1' }), (err: unknown) => err instanceof DuplicateKeyError && err.key === '_id');
  });

  await t.test('insertMany takes back what it inserted when a duplicate stops it', async () => {
    await assert.rejects(
      jobs.insertMany([{ _id: 'j2', name: 'b' }, { _id: 'j3', name: 'c' }, { _id: 'j1', name: 'dup' }, { _id: 'j4', name: 'd' }]),
      DuplicateKeyError,
    );
    await assert.rejects(jobs.insertMany([{ _id: 'k1' }, { _id: 'k2' }, { _id: 'k1' }]), DuplicateKeyError);
    assert.deepEqual(await jobs.findByIds(['j2', 'j3', 'j4', 'k1', 'k2']), []);
    assert.equal((await jobs.findById('j1'))?.['name'], 'alpha');
    await jobs.insertMany([{ _id: 'j2', name: 'beta', status: 'complete' }, { _id: 'j3', name: 'gamma', status: 'running', description: 'nightly backup job' }]);
    assert.equal(await jobs.count(null), 3);
  });

  await t.test('a unique index reports a duplicate key', async () => {
    const workflows = store.collection('workflows');
    await workflows.insertOne({ _id: 'w1', name: 'same' });
    await assert.rejects(workflows.insertOne({ _id: 'w2', name: 'same' }), (err: unknown) => err instanceof DuplicateKeyError && err.key === 'unique key');
    await workflows.insertOne({ _id: 'w2', name: 'other' });
    await assert.rejects(workflows.replaceOne({ _id: 'w2', name: 'same' }), DuplicateKeyError);
  });

  await t.test('search: page, total by estimatedDocumentCount or countDocuments, limit 0', async () => {
    const all = await jobs.search({ where: null, sort: [{ field: name, direction: 1 }], skip: 1, limit: 1 });
    assert.deepEqual([all.docs.map((d) => d['_id']), all.total], [['j2'], 3]);
    const running = await jobs.search({ where: { kind: 'compare', op: 'eq', field: status, value: 'running' }, sort: [{ field: name, direction: -1 }], skip: 0, limit: 10 });
    assert.deepEqual([running.docs.map((d) => d['_id']), running.total], [['j3', 'j1'], 2]);
    const none = await jobs.search({ where: { kind: 'not', item: { kind: 'in', field: status, values: ['running'] } }, sort: [], skip: 0, limit: 0 });
    assert.deepEqual([none.docs, none.total], [[], 1]);
    const text = await jobs.search({ where: { kind: 'text', field: jobType.fields.get('description')!, query: { terms: ['backup'], phrases: [], excluded: [] } }, sort: [], skip: 0, limit: 10 });
    assert.deepEqual(text.docs.map((d) => d['_id']), ['j3']);
  });

  await t.test('replaceOne and deleteOne answer whether a document was there', async () => {
    assert.equal(await jobs.replaceOne({ _id: 'j2', name: 'beta2' }), true);
    assert.deepEqual(await jobs.findById('j2'), { _id: 'j2', name: 'beta2' });
    assert.equal(await jobs.replaceOne({ _id: 'zz', name: 'x' }), false);
    assert.equal(await jobs.deleteOne('j2'), true);
    assert.equal(await jobs.deleteOne('j2'), false);
  });

  await t.test('index status and build: misnamed, missing, external; text search needs its index', async () => {
    const raw = db.collection('jobs');
    await raw.dropIndex('name_1__id_1');
    await raw.createIndex({ name: 1, _id: 1 }, { name: 'by_name' });
    await raw.dropIndex('description_text');
    await raw.createIndex({ created_by: 1 }, { name: 'ext' });
    const before = await jobs.indexStatus();
    assert.deepEqual(before.misnamed.map((ix) => ix.name), ['name_1__id_1']);
    assert.deepEqual(before.missing.map((ix) => ix.name), ['description_text']);
    assert.deepEqual(before.external, [{ name: 'ext', key: { created_by: 1 } }]);
    assert.equal(before.indexed, false);
    const description = jobType.fields.get('description')!;
    await assert.rejects(jobs.search({ where: { kind: 'text', field: description, query: { terms: ['x'], phrases: [], excluded: [] } }, sort: [], skip: 0, limit: 5 }), /text index required/);
    const after = await jobs.buildIndexes();
    assert.deepEqual(after, { missing: [], misnamed: [], external: [{ name: 'ext', key: { created_by: 1 } }], indexed: true });
    const names = (await raw.listIndexes().toArray()).map((ix) => String(ix['name']));
    assert.ok(names.includes('name_1__id_1') && !names.includes('by_name'), names.join(', '));
  });

  await t.test('a batch is one transaction: a failure at its end leaves nothing of it, a moved revision neither', async () => {
    await jobs.insertOne({ _id: 'b1', name: 'batch', _rev: 1 });
    const tasks = store.collection('tasks');
    await assert.rejects(
      store.batch([
        { op: 'replaceIfRev', collection: 'jobs', doc: { _id: 'b1', name: 'batch', _rev: 2 }, expectedRev: 1 },
        { op: 'insert', collection: 'tasks', doc: { _id: 'bt1', job: { _id: 'b1' } } },
        { op: 'insert', collection: 'jobs', doc: { _id: 'j1' } },
      ]),
      DuplicateKeyError,
    );
    assert.equal((await jobs.findById('b1'))?.['_rev'], 1);
    assert.equal(await tasks.findById('bt1'), null);
    assert.equal(await store.batch([{ op: 'insert', collection: 'tasks', doc: { _id: 'bt2', job: { _id: 'b1' } } }, { op: 'replaceIfRev', collection: 'jobs', doc: { _id: 'b1', _rev: 9 }, expectedRev: 5 }]), false);
    assert.equal(await tasks.findById('bt2'), null);
    const jobField = taskType.fields.get('job._id')!;
    await tasks.insertMany([{ _id: 'bt3', status: 'running', job: { _id: 'b1' } }, { _id: 'bt4', status: 'complete', job: { _id: 'other' } }]);
    assert.equal(await store.batch([{ op: 'setFields', collection: 'tasks', where: { kind: 'compare', op: 'eq', field: jobField, value: 'b1' }, fields: { groups: ['g'] } }]), true);
    assert.deepEqual(await tasks.findById('bt3'), { _id: 'bt3', status: 'running', job: { _id: 'b1' }, groups: ['g'] });
    assert.equal((await tasks.findById('bt4'))?.['groups'], undefined);
  });

  await t.test('replaceIfRev onto a taken unique key is a DuplicateKeyError, not a server error', async () => {
    const automations = store.collection('automations');
    await automations.insertMany([{ _id: 'a1', name: 'one', _rev: 0 }, { _id: 'a2', name: 'two', _rev: 0 }]);
    await assert.rejects(automations.replaceIfRev({ _id: 'a2', name: 'one', _rev: 1 }, 0), DuplicateKeyError);
  });

  await t.test('keys MongoDB refuses or reinterprets come back as written', async () => {
    const doc = { _id: 'wk', name: 'keys', $schema: 'x', link: { $ref: 'jobs', $id: 'j1' }, 'nul\0': 1 };
    const workflows = store.collection('workflows');
    await workflows.insertOne(doc);
    assert.deepEqual(await workflows.findById('wk'), doc);
    assert.equal(await workflows.replaceOne({ ...doc, $schema: 'y' }), true);
    assert.equal((await workflows.findById('wk'))?.['$schema'], 'y');
  });

  await t.test('a failed unique index build leaves the indexes there were; a foreign text index is a 409', async () => {
    const raw = db.collection('workflows');
    await raw.dropIndex('name_1');
    await raw.createIndex({ name: 1 }, { name: 'plain_name' });
    await raw.insertOne({ _id: 'dupA' as never, name: 'twin' });
    await raw.insertOne({ _id: 'dupB' as never, name: 'twin' });
    await assert.rejects(store.collection('workflows').buildIndexes(), (err: unknown) => (err as { status?: number }).status === 409);
    const names = (await raw.listIndexes().toArray()).map((ix) => String(ix['name']));
    assert.ok(names.includes('plain_name'), names.join(', '));
    await raw.deleteMany({ name: 'twin' });

    const jobsRaw = db.collection('jobs');
    await jobsRaw.dropIndex('description_text');
    await jobsRaw.createIndex({ name: 'text' }, { name: 'foreign_text' });
    await assert.rejects(jobs.buildIndexes(), (err: unknown) => (err as { status?: number }).status === 409 && /foreign_text/.test((err as Error).message));
    assert.deepEqual((await jobs.indexStatus()).missing.map((ix) => ix.name), ['description_text']);
    await jobsRaw.dropIndex('foreign_text');
    await jobs.buildIndexes();
  });

  await t.test('reconnecting builds indexes only for empty collections', async () => {
    await db.collection('jobs').dropIndex('ext');
    await db.collection('jobs').dropIndex('name_1__id_1');
    await db.collection('tasks').dropIndex('name_1__id_1');
    await store.close();
    store = await MongoStore.connect(withDatabase(url, dbName), CORE_COLLECTIONS);
    assert.deepEqual((await store.collection('jobs').indexStatus()).missing.map((ix) => ix.name), ['name_1__id_1']);
    assert.equal((await store.collection('tasks').indexStatus()).indexed, true);
  });
}

if (MONGO_URL) {
  test('MongoDB store against MONGO_URL', (t) => serverTests(t, MONGO_URL));
} else {
  console.log(SKIP_REASON);
  test('MongoDB store', { skip: SKIP_REASON }, () => undefined);
}
