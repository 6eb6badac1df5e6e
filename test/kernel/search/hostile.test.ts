/**
 * The search must not be a way into the database. Each attack that broke
 * another project (docs/search.md says which) gets a
 * clear 400 in the envelope, changes nothing, and pollutes no prototype.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { jobs, tasks } from '../../fixtures/search-data.ts';
import { startSearchFixture } from '../../helpers/search-fixture.ts';
import type { SearchFixture } from '../../helpers/search-fixture.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { searchStoreFactories } from '../../helpers/stores.ts';
import type { Store } from '../../../kernel/store/types.ts';

const q = (obj: unknown): string => `q=${encodeURIComponent(typeof obj === 'string' ? obj : JSON.stringify(obj))}`;
const deep = (levels: number): unknown => {
  let node: unknown = { equals: { status: 'running' } };
  for (let i = 0; i < levels; i += 1) node = { and: [node] };
  return node;
};

/** [what, query string, a parameter the 400 must name] */
const ATTACKS: Array<[string, string, string]> = [
  ['operator injection through brackets', 'equals[status][$ne]=x', 'equals[status][$ne]'],
  ['a $-prefixed field', 'equals[$where]=1', 'equals[$where]'],
  ['a top-level $where', '$where=sleep(1000)', '$where'],
  ['an unknown operator', 'regex[name]=.*', 'regex[name]'],
  ['an unknown parameter', 'filter=%7B%7D', 'filter'],
  ['__proto__ as a field', 'equals[__proto__]=x', 'equals[__proto__]'],
  ['constructor.prototype as a field', 'equals[constructor.prototype]=x', 'equals[constructor.prototype]'],
  ['__proto__ as a parameter', '__proto__[status]=x', '__proto__[status]'],
  ['$where inside q', q({ $where: '1' }), 'q.$where'],
  ['$where as a q field', q({ or: [{ equals: { $where: '1' } }] }), 'q.or[0].equals.$where'],
  ['__proto__ inside q', q('{"__proto__":{"equals":{"status":"x"}}}'), 'q.__proto__'],
  ['constructor inside q', q({ equals: { constructor: 'x' } }), 'q.equals.constructor'],
  ['_bsontype object as a value', q({ equals: { name: { _bsontype: 'Code', code: 'x' } } }), 'q.equals.name'],
  ['an operator object as a value', q({ equals: { status: { $ne: 'x' } } }), 'q.equals.status'],
  ['EJSON $oid as a value', q({ equals: { _id: { $oid: '0000000000000000000000a1' } } }), 'q.equals._id'],
  ['q that is not JSON', 'q=%7Bnot-json', 'q'],
  ['q that is an array', q([1]), 'q'],
  ['q that is a string', q('"x"'), 'q'],
  ['q nested deeper than allowed', q(deep(9)), 'q.and[0].and[0].and[0].and[0].and[0].and[0].and[0].and[0]'],
  ['an empty or', q({ or: [] }), 'q.or'],
  ['text search twice', 'contains[description]=a&q=' + encodeURIComponent('{"contains":{"description":"b"}}'), 'contains[description]'],
  ['text search inside or', q({ or: [{ contains: { description: 'router' } }, { equals: { status: 'error' } }] }), 'contains[description]'],
  ['text search inside not', q({ not: { contains: { description: 'router' } } }), 'contains[description]'],
  ['text search with only exclusions', 'contains[description]=-router', 'contains[description]'],
  ['a NUL character', 'equals[name]=a%00b', 'equals[name]'],
  ['malformed percent-encoding in a value', 'equals[name]=%ZZ', 'equals[name]'],
  ['malformed percent-encoding in a name', 'equals%5Bna%ZZme%5D=x', 'equals%5Bna%ZZme%5D'],
  ['a string operator on a date', 'starts-with[metrics.start_time]=2024', 'starts-with[metrics.start_time]'],
  ['a range on a boolean', 'gt[deprecated]=true', 'gt[deprecated]'],
  ['hexadecimal numbers', 'gt[metrics.progress]=0x10', 'gt[metrics.progress]'],
  ['leading-zero numbers', 'gt[metrics.progress]=01', 'gt[metrics.progress]'],
  ['Infinity', 'gt[metrics.progress]=Infinity', 'gt[metrics.progress]'],
  ['NaN', 'equals[metrics.progress]=NaN', 'equals[metrics.progress]'],
  ['a 12-character "object id"', 'equals[_id]=Rheumatology', 'equals[_id]'],
  ['an impossible calendar date', 'gt[metrics.start_time]=2024-02-30', 'gt[metrics.start_time]'],
  ['a date without zero padding', 'gt[metrics.start_time]=2024-5-1', 'gt[metrics.start_time]'],
  ['a date with an hour of 24', 'gt[metrics.start_time]=2024-05-01T24:00:00', 'gt[metrics.start_time]'],
  ['a boolean that is not true or false', 'equals[status]=x&equals[metrics.progress]=true', 'equals[metrics.progress]'],
  ['a repeated limit', 'limit=1&limit=2', 'limit'],
  ['a repeated q', `${q({ equals: { status: 'x' } })}&${q({ equals: { status: 'y' } })}`, 'q'],
];

for (const factory of searchStoreFactories()) {
  describe(`hostile search input on ${factory.name}`, { skip: factory.skip ?? false }, () => {
    let fixture: SearchFixture;
    let store: Store;
    let core: RunningCore;
    before(async () => {
      fixture = await startSearchFixture(factory);
      ({ store, core } = fixture);
    });
    after(async () => {
      // Nothing any attack sent may have changed the data or a prototype.
      assert.equal(await store.collection('jobs').count(null), jobs.length);
      assert.equal(await store.collection('tasks').count(null), tasks.length);
      assert.equal(({} as Record<string, unknown>)['status'], undefined);
      assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'equals'), false);
      await fixture.close();
    });

    for (const [what, queryString, parameter] of ATTACKS) {
      test(`${what} is a 400 naming ${parameter}`, async () => {
        const res = await core.request(`/operations-manager/jobs?${queryString}`);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        const body = res.body as { message: string; data: null; metadata: { errors: Array<{ parameter: string; message: string }> } };
        assert.deepEqual(Object.keys(body).sort(), ['data', 'message', 'metadata']);
        assert.equal(body.data, null);
        assert.ok(body.metadata.errors.some((e) => e.parameter === parameter), JSON.stringify(body.metadata.errors));
        assert.equal(res.headers.get('x-error-code'), 'VALIDATION_FAILED');
      });
    }

    test('regular-expression text is matched literally and quickly', async () => {
      const started = Date.now();
      const res = await core.request(`/operations-manager/jobs?contains[name]=${encodeURIComponent('(a+)+$')}&starts-with[name]=${encodeURIComponent('(a+)+')}`);
      assert.equal(res.status, 200);
      assert.deepEqual((res.body as { data: Array<{ name: string }> }).data.map((d) => d.name), ['(a+)+$ weird.name']);
      assert.ok(Date.now() - started < 2000);
    });

    test('an in list longer than allowed is refused', async () => {
      const values = Array.from({ length: core.config.search.maxInItems + 1 }, (_, i) => String(i % 10));
      const res = await core.request(`/operations-manager/jobs?in[metrics.progress]=${values.join(',')}`);
      assert.equal(res.status, 400);
      assert.match((res.body as { message: string }).message, /at most/);
    });

    test('an oversized query string is refused', async () => {
      const res = await core.request(`/operations-manager/jobs?equals[name]=${'x'.repeat(core.config.search.maxQueryLength)}`);
      assert.equal(res.status, 400);
      assert.ok(((res.body as { metadata: { errors: Array<{ parameter: string }> } }).metadata.errors).some((e) => e.parameter === 'query'));
    });

    test('q with more conditions than allowed is refused', async () => {
      const many = Array.from({ length: core.config.search.maxQNodes + 1 }, (_, i) => ({ equals: { name: `n${i}` } }));
      const res = await core.request(`/operations-manager/jobs?${q({ or: many })}`);
      assert.equal(res.status, 400);
    });

    test('a value longer than allowed is refused', async () => {
      const res = await core.request(`/operations-manager/jobs?contains[name]=${'y'.repeat(core.config.search.maxValueLength + 1)}`);
      assert.equal(res.status, 400);
    });

    test('one answer names every offending parameter', async () => {
      const res = await core.request(`/operations-manager/jobs?foo=1&equals[nope]=2&limit=x&sort=name`);
      const errors = (res.body as { metadata: { errors: Array<{ parameter: string }> } }).metadata.errors.map((e) => e.parameter).sort();
      assert.deepEqual(errors, ['equals[nope]', 'foo', 'limit', 'sort']);
    });
  });
}
