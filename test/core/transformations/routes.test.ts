/**
 * Transformation routes over HTTP on the real core: create, search, read,
 * replace, delete and import with their exact answers; unique names (400 as
 * the real platform answers); invalid schemas and mappings refused; roles.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pkg from '../../../package.json' with { type: 'json' };
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { makeUser, role } from '../../helpers/users.ts';
import { createOk, fruitPicker, ISO, OBJECT_ID, parameters, sender } from './helpers.ts';
import type { Json } from './helpers.ts';
import { eventually } from '../../helpers/wait.ts';

let core: RunningCore;
let admin: Json;
before(async () => {
  core = await startCore((await openTestStore()));
  const account = (await core.core.auth.findAccount('admin'))!;
  admin = { _id: account['_id'], provenance: account['provenance'], username: 'admin' };
});
after(() => core.close());

const send = sender(() => core);
const count = async (): Promise<number> => (await core.store.collection('transformations').search({ where: null, sort: [], skip: 0, limit: 1000 })).total;

test('creating answers the stored document with an object id, authorship and version', async () => {
  const input = fruitPicker('Create Answer');
  const res = await send('POST', '/transformations/', input);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const created = res.body as Json;
  assert.match(created['_id'] as string, OBJECT_ID);
  assert.match(created['created'] as string, ISO);
  assert.deepEqual(created, {
    _id: created['_id'], ...input,
    created: created['created'], createdBy: admin, lastUpdated: created['created'], lastUpdatedBy: admin, version: pkg.version,
  });
  assert.deepEqual(await core.store.collection('transformations').findById(created['_id'] as string), created);
  // The platform's CLI posts without the trailing slash.
  const bare = await send('POST', '/transformations', { name: 'No Slash' });
  assert.equal(bare.status, 200, JSON.stringify(bare.body));
  assert.deepEqual({ ...(bare.body as Json), _id: 0, created: 0, lastUpdated: 0 }, {
    _id: 0, name: 'No Slash', description: '', incoming: [], outgoing: [], created: 0, createdBy: admin, lastUpdated: 0, lastUpdatedBy: admin, version: pkg.version,
  });
});

test('a taken name is refused with the real platform message, on create and on rename', async () => {
  const first = await createOk(send, fruitPicker('Taken Name'));
  const before = await count();
  const dup = await send('POST', '/transformations/', fruitPicker('Taken Name'));
  assert.equal(dup.status, 400);
  assert.deepEqual(dup.body, {
    message: 'Transformation with given name already exists', code: 'BAD_REQUEST',
    details: [{ parameter: 'name', message: '"Taken Name" is already the name of another transformation' }],
  });
  assert.equal(await count(), before);
  const other = await createOk(send, fruitPicker('Other Name'));
  const rename = await send('PUT', `/transformations/${other['_id'] as string}`, fruitPicker('Taken Name'));
  assert.equal(rename.status, 400);
  assert.equal((rename.body as Json)['message'], 'Transformation with given name already exists');
  assert.equal((await send('GET', `/transformations/${first['_id'] as string}`)).status, 200);
  assert.equal(((await send('GET', `/transformations/${other['_id'] as string}`)).body as Json)['name'], 'Other Name');
});

test('invalid documents are refused with every problem named, and nothing is stored', async () => {
  const before = await count();
  const res = await send('POST', '/transformations/', {
    description: 7,
    incoming: [{ $id: 'a', type: 'strin' }, { type: 'string' }, { $id: 'a', type: 'number' }, 'x'],
    outgoing: { $id: 'b' },
    mapping: '{"b": }',
    colour: 'red',
    view: [],
  });
  assert.equal(res.status, 400);
  assert.equal((res.body as Json)['code'], 'VALIDATION_FAILED');
  assert.deepEqual(parameters(res).sort(), [
    'body.colour', 'body.description', 'body.incoming[0]', 'body.incoming[1].$id', 'body.incoming[2].$id', 'body.incoming[3]', 'body.mapping', 'body.name', 'body.outgoing', 'body.view',
  ]);
  const details = (res.body as { details: Array<{ parameter: string; message: string }> }).details;
  const about = (p: string): string => details.find((d) => d.parameter === p)!.message;
  assert.match(about('body.incoming[0]'), /^is not a valid JSON Schema: schema is invalid: data\/type must be equal to one of the allowed values/);
  assert.equal(about('body.incoming[2].$id'), 'a is already the $id of body.incoming[0]; $ids must be unique within body.incoming');
  assert.match(about('body.mapping'), /^is not a valid JSONata expression: .+ \(at character \d+\)$/);
  assert.equal(about('body.name'), 'is required');
  assert.equal(await count(), before);
  // The same $id may name an incoming and an outgoing schema.
  await createOk(send, { ...fruitPicker('Same Id Both Ways'), outgoing: [{ $id: 'basket', type: 'object' }], mapping: '{"basket": basket}' });
});

test('search answers {results, total} with the generic list parameters, by name', async () => {
  for (const n of ['Search C', 'Search A', 'Search B']) await createOk(send, fruitPicker(n));
  const page = await send('GET', '/transformations/?startsWith=Search%20&startsWithField=name&limit=2');
  assert.equal(page.status, 200, JSON.stringify(page.body));
  const body = page.body as { results: Json[]; total: number };
  assert.deepEqual(Object.keys(body), ['results', 'total']);
  assert.equal(body.total, 3);
  assert.deepEqual(body.results.map((r) => r['name']), ['Search A', 'Search B']);
  assert.deepEqual(body.results[0], (await send('GET', `/transformations/${body.results[0]!['_id'] as string}`)).body);
  const desc = await send('GET', '/transformations?startsWith=Search%20&startsWithField=name&sort=name&order=-1&skip=1');
  assert.deepEqual((desc.body as { results: Json[] }).results.map((r) => r['name']), ['Search B', 'Search A']);
  const exact = await send('GET', '/transformations/?equals=Search%20B&equalsField=name');
  assert.deepEqual((exact.body as { results: Json[]; total: number }).total, 1);
  // The platform's CLI finds by name with the bracketed form.
  const bracketed = await send('GET', '/transformations?contains[name]=arch%20C');
  assert.deepEqual((bracketed.body as { results: Json[] }).results.map((r) => r['name']), ['Search C']);
  const bad = await send('GET', '/transformations/?sort=mapping&colour=red');
  assert.equal(bad.status, 400);
  assert.deepEqual(parameters(bad).sort(), ['query.colour', 'query.sort']);
});

test('read, replace and delete one transformation; unknown ids are 404, malformed ones 400', async () => {
  const created = await createOk(send, { ...fruitPicker('Edit Me'), tags: ['t1'] });
  const id = created['_id'] as string;
  assert.deepEqual((await send('GET', `/transformations/${id}`)).body, created);
  // The stamps are milliseconds: the replacement must come in a later one to be told apart.
  await eventually(() => Date.now() > Date.parse(created['created'] as string), { what: 'the clock past the creation' });
  const replacement = { name: 'Edited', incoming: [], outgoing: [{ $id: 'n', type: 'number' }], mapping: '{"n": 42}' };
  // Clients send back what they read: server fields are accepted and ignored, the same _id too.
  const put = await send('PUT', `/transformations/${id}`, { ...replacement, _id: id, created: 'x', version: 'y' });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const updated = put.body as Json;
  assert.match(updated['lastUpdated'] as string, ISO);
  assert.notEqual(updated['lastUpdated'], created['created']);
  assert.deepEqual(updated, {
    _id: id, ...replacement, description: '',
    created: created['created'], createdBy: admin, lastUpdated: updated['lastUpdated'], lastUpdatedBy: admin, version: pkg.version,
  });
  assert.deepEqual((await send('GET', `/transformations/${id}`)).body, updated);
  const moved = await send('PUT', `/transformations/${id}`, { ...replacement, _id: '0000000000000000000000ff' });
  assert.equal(moved.status, 400);
  assert.deepEqual(parameters(moved), ['body._id']);
  const invalid = await send('PUT', `/transformations/${id}`, { ...replacement, mapping: '(' });
  assert.deepEqual([invalid.status, parameters(invalid)], [400, ['body.mapping']]);

  const del = await send('DELETE', `/transformations/${id}`);
  assert.equal(del.status, 204);
  assert.equal(del.body, '');
  const unknown = '0000000000000000000000a1';
  for (const [method, path, body] of [['GET', `/transformations/${id}`], ['DELETE', `/transformations/${id}`], ['PUT', `/transformations/${unknown}`, replacement], ['POST', `/transformations/${unknown}`, {}]] as const) {
    const res = await send(method, path, body);
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.equal((res.body as Json)['code'], 'NOT_FOUND');
  }
  const malformed = await send('GET', '/transformations/nope');
  assert.deepEqual([malformed.status, parameters(malformed)], [400, ['params.id']]);
});

test('import keeps a free _id, takes the next free "name (n)" for a taken name, and answers in the form sent', async () => {
  const id = '65a0000000000000000000aa';
  const exported = { ...fruitPicker('Imported'), _id: id, created: '2020-01-01T00:00:00.000Z', createdBy: { _id: 'x', provenance: 'p', username: 'u' }, steps: [], view: { col: 3, row: 5 } };
  const one = await send('POST', '/transformations/import', exported);
  assert.equal(one.status, 200, JSON.stringify(one.body));
  const first = one.body as Json;
  assert.deepEqual(first, {
    _id: id, ...fruitPicker('Imported'), steps: [], view: { col: 3, row: 5 },
    created: first['created'], createdBy: admin, lastUpdated: first['created'], lastUpdatedBy: admin, version: pkg.version,
  });
  const again = await send('POST', '/transformations/import', [exported, exported]);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  const list = again.body as Json[];
  assert.deepEqual(list.map((d) => d['name']), ['Imported (1)', 'Imported (2)']);
  for (const d of list) assert.ok(d['_id'] !== id && OBJECT_ID.test(d['_id'] as string));
  assert.equal(((await send('GET', `/transformations/${id}`)).body as Json)['name'], 'Imported');

  const before = await count();
  const bad = await send('POST', '/transformations/import', [fruitPicker('Import Good'), { ...fruitPicker('Import Bad'), mapping: '[' }]);
  assert.equal(bad.status, 400);
  assert.deepEqual(parameters(bad), ['body[1].mapping']);
  assert.equal(await count(), before);
  const empty = await send('POST', '/transformations/import', []);
  assert.deepEqual([empty.status, parameters(empty)], [400, ['body']]);
});

test('roles: readers search but do not write; apiwrite runs but does not create', async () => {
  const reader = await makeUser(core, 'jst-reader', { roles: [role('Jst', 'apiread')] });
  const runner = await makeUser(core, 'jst-runner', { roles: [role('Jst', 'apiwrite')] });
  const created = await createOk(send, fruitPicker('Roles'));
  assert.equal((await send('GET', '/transformations/', undefined, reader.token)).status, 200);
  assert.equal((await send('POST', '/transformations/', fruitPicker('Roles 2'), reader.token)).status, 403);
  assert.equal((await send('POST', `/transformations/${created['_id'] as string}`, { basket: { items: [] } }, reader.token)).status, 403);
  assert.equal((await send('POST', '/transformations/', fruitPicker('Roles 3'), runner.token)).status, 403);
  const run = await send('POST', `/transformations/${created['_id'] as string}`, { basket: { items: [{ name: 'fig', kind: 'fruit' }] } }, runner.token);
  assert.deepEqual([run.status, run.body], [200, { fruit: 'fig' }]);
  assert.equal((await send('GET', '/transformations/', undefined, null)).status, 401);
});
