/**
 * The safety net under the services' duplicate-key catches: a write the
 * store refuses as a duplicate, reaching the error middleware uncaught, is
 * a 409 CONFLICT naming the key, never a 500.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { duplicateKeyConflict, toAppError } from '../../kernel/errors.ts';
import { errorHandler } from '../../kernel/http/error-handler.ts';
import { createLogger } from '../../kernel/logger.ts';
import { DuplicateKeyError } from '../../kernel/store/types.ts';
import type { Store } from '../../kernel/store/types.ts';
import { openTestStore } from '../helpers/stores.ts';

test('toAppError turns the store\'s duplicate into a 409 CONFLICT naming the key', () => {
  const err = toAppError(new DuplicateKeyError('accounts', 'unique key'));
  assert.equal(err.status, 409);
  assert.equal(err.code, 'CONFLICT');
  assert.equal(err.expose, true);
  assert.equal(err.message, 'Another document in accounts has the same unique key; the write was refused');
  assert.deepEqual(err.details, []);
  assert.equal(toAppError(new DuplicateKeyError('jobs', '_id')).message, 'Another document in jobs has the same id; the write was refused');
  assert.deepEqual(duplicateKeyConflict(new DuplicateKeyError('jobs', '_id')), toAppError(new DuplicateKeyError('jobs', '_id')));
});

let store: Store;
let server: Server;
let base: string;

before(async () => {
  store = await openTestStore();
  const app = new Koa();
  app.use(errorHandler(createLogger({ level: 'error', service: 'core', silent: true })));
  // A handler that writes without catching the duplicate, as a service that missed its catch would:
  // each call a new account with the same username and provenance, which a unique index refuses.
  let n = 0;
  app.use(async (ctx) => {
    n += 1;
    await store.collection('accounts').insertOne({ _id: n.toString(16).padStart(24, '0'), username: 'dup', provenance: 'Local AAA' });
    ctx.body = { written: true };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.close();
});

test('a duplicate write no service caught answers 409 with X-Error-Code CONFLICT, not 500', async () => {
  const first = await fetch(`${base}/accounts`, { method: 'POST' });
  assert.equal(first.status, 200);
  const second = await fetch(`${base}/accounts`, { method: 'POST' });
  assert.equal(second.status, 409);
  assert.equal(second.headers.get('x-error-code'), 'CONFLICT');
  const body = (await second.json()) as { message: string; code: string; details: unknown[] };
  assert.equal(body.code, 'CONFLICT');
  assert.match(body.message, /^Another document in accounts has the same unique key; the write was refused$/);
  assert.deepEqual(body.details, []);
  assert.equal(await store.collection('accounts').count(null), 1);
});
