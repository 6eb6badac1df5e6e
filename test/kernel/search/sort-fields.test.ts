/**
 * Sorting as the interface says: jobs and tasks sort on every scalar field of
 * their document type (for jobs, `metrics.start_time` is the only `metrics.*`
 * one), in both directions, `_id` breaking ties. The expected order comes from
 * mingo, an independent implementation of MongoDB's sort, over the same
 * documents the store holds. A sort on a field without an index is refused
 * beyond `search.maxUnindexedSortWindow` rows.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Query } from 'mingo';
import type { AnyObject } from 'mingo/types';
import { jobs as jobType, tasks as taskType } from '../../../kernel/search/fields.ts';
import type { DocType } from '../../../kernel/search/fields.ts';
import { sortIsIndexed } from '../../../kernel/store/collections.ts';
import { jobs, tasks } from '../../fixtures/search-data.ts';
import { startSearchFixture } from '../../helpers/search-fixture.ts';
import type { SearchFixture } from '../../helpers/search-fixture.ts';
import { searchStoreFactories } from '../../helpers/stores.ts';

type Doc = Record<string, unknown>;

/** Every scalar path the document type registers: the interface's "valid field paths". */
function scalarPaths(type: DocType): string[] {
  return [...type.fields.values()].filter((f) => !f.array).map((f) => f.path);
}

const cases: Array<{ type: DocType; docs: Doc[]; route: string }> = [
  { type: jobType, docs: jobs, route: 'jobs' },
  { type: taskType, docs: tasks, route: 'tasks' },
];

for (const factory of searchStoreFactories()) {
  describe(`sorting on ${factory.name}`, { skip: factory.skip ?? false }, () => {
    let fixture: SearchFixture;
    before(async () => {
      fixture = await startSearchFixture(factory);
    });
    after(async () => {
      await fixture.close();
    });
    const ids = async (path: string): Promise<{ status: number; ids: string[]; body: unknown }> => {
      const res = await fixture.core.request(`/operations-manager/${path}`);
      const data = (res.body as { data: Doc[] | null }).data;
      return { status: res.status, ids: Array.isArray(data) ? data.map((d) => String(d['_id'])) : [], body: res.body };
    };

    for (const { type, docs, route } of cases) {
      const sortable = scalarPaths(type).filter((p) => !(type === jobType && p.startsWith('metrics.') && p !== 'metrics.start_time'));
      for (const path of sortable) {
        for (const order of [1, -1] as const) {
          test(`${route} sort=${path}&order=${order} answers mingo's order, _id last`, async () => {
            const expected = new Query({}).find<Doc>(docs as AnyObject[]).sort({ [path]: order, _id: order }).all().map((d) => String(d['_id']));
            const got = await ids(`${route}?sort=${encodeURIComponent(path)}&order=${order}`);
            assert.equal(got.status, 200, JSON.stringify(got.body));
            assert.deepEqual(got.ids, expected);
          });
        }
      }
    }

    for (const path of ['metrics.end_time', 'metrics.progress', 'metrics.user', 'groups', 'watchers', 'variables.x', 'nope']) {
      test(`jobs sort=${path} is refused naming sort`, async () => {
        const res = await fixture.core.request(`/operations-manager/jobs?sort=${path}&order=1`);
        assert.equal(res.status, 400);
        const errors = (res.body as { metadata: { errors: Array<{ parameter: string }> } }).metadata.errors;
        assert.deepEqual(errors.map((e) => e.parameter), ['sort']);
      });
    }

    test('the fields people sort jobs on have an index; a sort on one without is bounded by the window', async () => {
      for (const path of ['name', 'status', 'metrics.start_time', 'created', 'last_updated', 'description', 'type']) assert.ok(sortIsIndexed(jobType, path), path);
      assert.equal(sortIsIndexed(jobType, 'created_by'), false);
      const window = fixture.core.config.search.maxUnindexedSortWindow;
      const inside = await ids(`jobs?sort=created_by&order=1&skip=${window - 100}&limit=100`);
      assert.equal(inside.status, 200, JSON.stringify(inside.body));
      const beyond = await fixture.core.request(`/operations-manager/jobs?sort=created_by&order=1&skip=${window - 99}&limit=100`);
      assert.equal(beyond.status, 400);
      const errors = (beyond.body as { metadata: { errors: Array<{ parameter: string; message: string }> } }).metadata.errors;
      assert.equal(errors[0]?.parameter, 'skip');
      assert.match(errors[0]!.message, /created_by, which has no index/);
      // An indexed sort walks its index: any skip is accepted.
      assert.equal((await ids(`jobs?sort=created&order=-1&skip=${window * 10}&limit=100`)).status, 200);
    });

    test('tasks keep an index for the platform\'s sort and the status and time reads; type and description sort in the window', async () => {
      for (const path of ['name', 'status', 'metrics.start_time', 'last_updated']) assert.ok(sortIsIndexed(taskType, path), path);
      for (const path of ['type', 'description']) assert.equal(sortIsIndexed(taskType, path), false, path);
      const window = fixture.core.config.search.maxUnindexedSortWindow;
      assert.equal((await ids(`tasks?sort=type&order=1&skip=${window - 100}&limit=100`)).status, 200);
      const beyond = await fixture.core.request(`/operations-manager/tasks?sort=description&order=-1&skip=${window - 99}&limit=100`);
      assert.equal(beyond.status, 400);
      const errors = (beyond.body as { metadata: { errors: Array<{ parameter: string; message: string }> } }).metadata.errors;
      assert.equal(errors[0]?.parameter, 'skip');
      assert.match(errors[0]!.message, /description, which has no index \(indexed: _id, name, status, last_updated, metrics\.start_time\)/);
      assert.equal((await ids(`tasks?sort=name&order=1&skip=${window * 10}&limit=100`)).status, 200);
    });
  });
}
