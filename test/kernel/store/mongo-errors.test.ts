/**
 * MongoDB's failures as the error family's, without a server: errors are
 * built the way the driver builds them (its own classes, server codes and
 * error labels), and each must come out as the code docs/errors.md gives it,
 * through the same HTTP error rendering as the embedded store's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Collection } from 'mongodb';
import { MongoBulkWriteError, MongoNetworkError, MongoNetworkTimeoutError, MongoServerError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';
import { DocumentTooLargeError, StoreFullError, StoreUnavailableError, toAppError } from '../../../kernel/errors.ts';
import { searchedCollection } from '../../../kernel/store/collections.ts';
import { catalogAutomations as automations } from '../../../core/src/store/doc-types.ts';
import { MongoCollection } from '../../../kernel/store/mongo/collection.ts';
import type { StoredDoc } from '../../../kernel/store/mongo/collection.ts';
import { mongoStoreError } from '../../../kernel/store/mongo/errors.ts';
import { clientOptions, transactionsUnsupported } from '../../../kernel/store/mongo/store.ts';
import { DuplicateKeyError } from '../../../kernel/store/types.ts';

const server = (code: number, errmsg: string, labels: string[] = []) => new MongoServerError({ ok: 0, code, errmsg, errorLabels: labels });

test('failover and unreachable servers are STORE_UNAVAILABLE (503), so callers retry instead of failing', () => {
  const cases: unknown[] = [
    server(10107, 'not primary'),
    server(189, 'PrimarySteppedDown'),
    server(11602, 'operation was interrupted because of a replica set state change'),
    server(91, 'The server is in quiesce mode and will shut down'),
    server(13436, 'node is not in primary or recovering state'),
    server(251, 'NoSuchTransaction', ['TransientTransactionError']),
    new MongoNetworkError('connection 3 to 10.0.0.1:27017 closed'),
    new MongoNetworkTimeoutError('connection timed out'),
    new MongoServerSelectionError('Server selection timed out after 2000 ms', { type: 'ReplicaSetNoPrimary' } as never),
    new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } } as never),
  ];
  for (const err of cases) {
    const mapped = mongoStoreError(err, 'jobs');
    assert.ok(mapped instanceof StoreUnavailableError, `${(err as Error).message} -> ${String(mapped)}`);
    assert.equal(toAppError(mapped).status, 503);
    assert.equal(toAppError(mapped).code, 'STORE_UNAVAILABLE');
  }
});

test('a duplicate key, also inside a bulk insert, is a DuplicateKeyError naming the key', () => {
  const plain = mongoStoreError(server(11000, 'E11000 duplicate key error collection: iap.automations index: name_1 dup key: { name: "a" }'), 'automations');
  assert.ok(plain instanceof DuplicateKeyError);
  assert.equal(plain.key, 'unique key');
  const onId = mongoStoreError(server(11000, 'E11000 duplicate key error collection: iap.jobs index: _id_ dup key: { _id: "a" }'), 'jobs');
  assert.ok(onId instanceof DuplicateKeyError && onId.key === '_id');
  const bulk = new MongoBulkWriteError(
    { message: 'E11000', code: 11000, writeErrors: [{ index: 2, code: 11000, errmsg: 'E11000 duplicate key error collection: iap.jobs index: _id_ dup key: { _id: "j1" }' }] } as never,
    { insertedCount: 2, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0, insertedIds: {}, upsertedIds: {} } as never,
  );
  const mapped = mongoStoreError(bulk, 'jobs');
  assert.ok(mapped instanceof DuplicateKeyError && mapped.key === '_id', String(mapped));
});

test('a server out of disk space is STORE_FULL (507); a document over the BSON limit is 413', () => {
  const full = mongoStoreError(server(14031, 'Out of disk space'), 'jobs');
  assert.ok(full instanceof StoreFullError);
  assert.equal(toAppError(full).status, 507);
  const large = mongoStoreError(server(10334, 'BSONObj size: 17000000 (0x...) is invalid. Size must be between 0 and 16793600(16MB)'), 'jobs');
  assert.ok(large instanceof DocumentTooLargeError);
  assert.equal(toAppError(large).status, 413);
});

test('anything else passes unchanged and stays a 500', () => {
  const other = server(2, 'BadValue: unknown operator');
  assert.equal(mongoStoreError(other, 'jobs'), other);
  const plain = new Error('not from the driver');
  assert.equal(mongoStoreError(plain, 'jobs'), plain);
  assert.equal(toAppError(mongoStoreError(other, 'jobs')).status, 500);
});

test('the store refuses a standalone server and says a single-node replica set is enough', () => {
  assert.match(transactionsUnsupported({ isWritablePrimary: true, maxWireVersion: 21 }) ?? '', /standalone.*replica set.*single-node replica set is enough/s);
  assert.equal(transactionsUnsupported({ isWritablePrimary: true, setName: 'rs0' }), null);
  assert.equal(transactionsUnsupported({ isWritablePrimary: true, msg: 'isdbgrid' }), null);
});

test('majority writes and reads by default, and whatever the URL sets is left to it', () => {
  const defaults = clientOptions('mongodb://h1,h2/iap?replicaSet=rs');
  assert.deepEqual(defaults.writeConcern, { w: 'majority' });
  assert.deepEqual(defaults.readConcern, { level: 'majority' });
  assert.equal(defaults.serverSelectionTimeoutMS, 5000);
  const own = clientOptions('mongodb://h1/iap?replicaSet=rs&w=1&readConcernLevel=local&serverSelectionTimeoutMS=100');
  assert.equal(own.writeConcern, undefined);
  assert.equal(own.readConcern, undefined);
  assert.equal(own.serverSelectionTimeoutMS, undefined);
});

test('every write and read of a MongoDB collection reports the mapped error (replaceIfRev onto a taken name is a DuplicateKeyError)', async () => {
  // A stand-in for the driver's collection that fails as the server would; the store's own code runs unchanged.
  let failWith: unknown = null;
  const fail = async (): Promise<never> => {
    throw failWith;
  };
  const driverCollection = { insertOne: fail, replaceOne: fail, deleteOne: fail, findOne: fail, updateMany: fail };
  const transact = async <T>(fn: (session: never) => Promise<T>): Promise<T> => fn(undefined as never);
  const coll = new MongoCollection(driverCollection as unknown as Collection<StoredDoc>, searchedCollection(automations), transact);
  failWith = server(11000, 'E11000 duplicate key error collection: iap.automations index: name_1 dup key: { name: "taken" }');
  await assert.rejects(coll.replaceIfRev({ _id: 'a2', name: 'taken', _rev: 1 }, 0), DuplicateKeyError);
  await assert.rejects(coll.replaceOne({ _id: 'a2', name: 'taken' }), DuplicateKeyError);
  await assert.rejects(coll.insertOne({ _id: 'a3', name: 'taken' }), DuplicateKeyError);
  failWith = server(10107, 'not primary');
  await assert.rejects(coll.replaceIfRev({ _id: 'a2', _rev: 1 }, 0), StoreUnavailableError);
  await assert.rejects(coll.deleteOne('a2'), StoreUnavailableError);
  await assert.rejects(coll.findById('a2'), StoreUnavailableError);
});
