/**
 * Projection, dereference, sort, page and read-by-id rules of the search,
 * through HTTP, each with the exact answer, on every store that runs here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ACCOUNT_OPERATOR, GROUP_ENG, groups, jobId, jobs, label, taskId, tasks } from '../../fixtures/search-data.ts';
import { startSearchFixture } from '../../helpers/search-fixture.ts';
import type { SearchFixture } from '../../helpers/search-fixture.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { searchStoreFactories } from '../../helpers/stores.ts';

type Doc = Record<string, unknown>;
interface Envelope {
  message: string;
  data: Doc[] | Doc | null;
  metadata: Record<string, unknown>;
}

for (const factory of searchStoreFactories()) {
  describe(`search rules on ${factory.name}`, { skip: factory.skip ?? false }, () => {
    let fixture: SearchFixture;
    let core: RunningCore;
    const get = async (path: string): Promise<{ status: number; body: Envelope }> => {
      const res = await core.request(`/operations-manager${path}`);
      return { status: res.status, body: res.body as Envelope };
    };
    const list = async (path: string): Promise<Doc[]> => {
      const res = await get(path);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data as Doc[];
    };
    const refused = async (path: string, parameter: string): Promise<void> => {
      const res = await get(path);
      assert.equal(res.status, 400, `expected 400 for ${path}, got ${res.status}`);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'metadata']);
      assert.equal(res.body.data, null);
      const errors = (res.body.metadata['errors'] ?? []) as Array<{ parameter: string }>;
      assert.ok(errors.some((e) => e.parameter === parameter), `metadata.errors should name ${parameter}: ${JSON.stringify(errors)}`);
    };

    before(async () => {
      fixture = await startSearchFixture(factory);
      ({ core } = fixture);
    });
    after(async () => {
      await fixture.close();
    });

    describe('envelope', () => {
      test('a search answers exactly message, data and metadata with the pagination fields', async () => {
        const res = await get('/jobs?limit=2');
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(res.body).sort(), ['data', 'message', 'metadata']);
        assert.equal(res.body.message, 'Successfully retrieved items');
        assert.deepEqual(res.body.metadata, { skip: 0, limit: 2, nextPageSkip: 2, previousPageSkip: null, total: 6, currentPageSize: 2 });
      });
      test('a read by id answers the document with empty metadata', async () => {
        const res = await get(`/jobs/${jobId(3)}`);
        assert.equal(res.status, 200);
        assert.equal(res.body.message, 'Successfully retrieved item');
        assert.equal((res.body.data as Doc)['name'], 'Router Software Upgrade');
        assert.deepEqual(res.body.metadata, {});
      });
    });

    describe('pagination', () => {
      const cases: Array<[string, string[], Record<string, number | null>]> = [
        ['limit=2', ['J5', 'J1'], { skip: 0, limit: 2, nextPageSkip: 2, previousPageSkip: null, total: 6, currentPageSize: 2 }],
        ['skip=2&limit=2', ['J2', 'J3'], { skip: 2, limit: 2, nextPageSkip: 4, previousPageSkip: 0, total: 6, currentPageSize: 2 }],
        ['skip=4&limit=2', ['J4', 'J6'], { skip: 4, limit: 2, nextPageSkip: null, previousPageSkip: 2, total: 6, currentPageSize: 2 }],
        ['skip=5&limit=2', ['J6'], { skip: 5, limit: 2, nextPageSkip: null, previousPageSkip: 3, total: 6, currentPageSize: 1 }],
        ['skip=10', [], { skip: 10, limit: 100, nextPageSkip: null, previousPageSkip: 0, total: 6, currentPageSize: 0 }],
        ['limit=0', [], { skip: 0, limit: 0, nextPageSkip: null, previousPageSkip: null, total: 6, currentPageSize: 0 }],
        ['', ['J5', 'J1', 'J2', 'J3', 'J4', 'J6'], { skip: 0, limit: 100, nextPageSkip: null, previousPageSkip: null, total: 6, currentPageSize: 6 }],
        ['equals[status]=complete&limit=1', ['J1'], { skip: 0, limit: 1, nextPageSkip: 1, previousPageSkip: null, total: 2, currentPageSize: 1 }],
      ];
      for (const [qs, expected, metadata] of cases) {
        test(`?${qs} answers ${expected.join(',') || 'nothing'} with exact metadata`, async () => {
          const res = await get(`/jobs?${qs}`);
          assert.deepEqual((res.body.data as Doc[]).map((d) => label(d['_id'])), expected);
          assert.deepEqual(res.body.metadata, metadata);
        });
      }
      test('walking nextPageSkip visits every job once', async () => {
        const seen: string[] = [];
        let skip: number | null = 0;
        while (skip !== null) {
          const res = await get(`/jobs?limit=4&skip=${skip}&sort=metrics.start_time&order=-1`);
          seen.push(...(res.body.data as Doc[]).map((d) => label(d['_id'])));
          skip = res.body.metadata['nextPageSkip'] as number | null;
        }
        assert.deepEqual(seen, ['J6', 'J5', 'J4', 'J3', 'J2', 'J1']);
      });
      for (const [qs, parameter] of [['limit=1001', 'limit'], ['limit=-1', 'limit'], ['limit=1.5', 'limit'], ['limit=abc', 'limit'], ['skip=-1', 'skip'], ['skip=1e3', 'skip'], ['limit=', 'limit']] as const) {
        test(`?${qs} is refused naming ${parameter}`, () => refused(`/jobs?${qs}`, parameter));
      }
    });

    describe('sorting', () => {
      test('sort by metrics.start_time descending breaks ties by _id in the same direction', async () => {
        const data = await list('/jobs?sort=metrics.start_time&order=-1');
        assert.deepEqual(data.map((d) => label(d['_id'])), ['J6', 'J5', 'J4', 'J3', 'J2', 'J1']);
      });
      test('sort by metrics.start_time ascending', async () => {
        const data = await list('/jobs?sort=metrics.start_time&order=1');
        assert.deepEqual(data.map((d) => label(d['_id'])), ['J1', 'J2', 'J3', 'J4', 'J5', 'J6']);
      });
      test('sort by name descending puts the equal names in descending _id order', async () => {
        const data = await list('/jobs?sort=name&order=-1');
        assert.deepEqual(data.map((d) => label(d['_id'])), ['J6', 'J4', 'J3', 'J2', 'J1', 'J5']);
      });
      test('sort by last_updated on tasks', async () => {
        const data = await list('/tasks?sort=last_updated&order=-1');
        assert.deepEqual(data.map((d) => label(d['_id'])), ['T5', 'T4', 'T2', 'T3', 'T1']);
      });
      test('sort with an include that keeps the sort field is accepted', async () => {
        const data = await list('/jobs?sort=name&order=1&include=name&limit=1');
        assert.deepEqual(data, [{ _id: jobId(5), name: '(a+)+$ weird.name' }]);
      });
      for (const [qs, parameter] of [
        ['sort=name', 'sort'],
        ['order=1', 'order'],
        ['sort=name&order=2', 'order'],
        ['sort=name&order=asc', 'order'],
        ['sort=metrics.end_time&order=1', 'sort'],
        ['sort=metrics.progress&order=1', 'sort'],
        ['sort=nope&order=1', 'sort'],
        ['sort=name&order=1&include=status', 'sort'],
        ['sort=name&order=1&exclude=name', 'sort'],
        ['sort=name&sort=status&order=1', 'sort'],
      ] as const) {
        test(`?${qs} is refused naming ${parameter}`, () => refused(`/jobs?${qs}`, parameter));
      }
    });

    describe('projection', () => {
      test('include returns only those properties plus _id', async () => {
        const data = await list('/jobs?include=name,status&limit=1');
        assert.deepEqual(data, [{ _id: jobId(5), name: '(a+)+$ weird.name', status: 'canceled' }]);
      });
      test('include with exclude=_id drops the _id', async () => {
        const data = await list('/jobs?include=name&exclude=_id&limit=2');
        assert.deepEqual(data, [{ name: '(a+)+$ weird.name' }, { name: 'Port Turn-Up' }]);
      });
      test('include of a nested path keeps only that leaf', async () => {
        const data = await list(`/jobs?include=metrics.start_time&equals[_id]=${jobId(1)}`);
        assert.deepEqual(data, [{ _id: jobId(1), metrics: { start_time: Date.parse('2024-01-10T08:00:00Z') } }]);
      });
      test('exclude removes the named properties and keeps the rest', async () => {
        const data = await list(`/jobs?exclude=variables,transitions,tasks&equals[_id]=${jobId(5)}`);
        const expected = { ...jobs[4]! };
        delete expected['variables'];
        delete expected['transitions'];
        delete expected['tasks'];
        assert.deepEqual(data, [expected]);
      });
      test('exclude=_id alone keeps everything but the _id', async () => {
        const data = await list(`/tasks?exclude=_id&equals[_id]=${taskId(5)}`);
        const { _id: _dropped, ...expected } = tasks[4]!;
        assert.deepEqual(data, [expected]);
      });
      test('a job\'s output is not returned unless dereferenced', async () => {
        const data = await list(`/jobs?equals[_id]=${jobId(1)}`);
        assert.equal('output' in data[0]!, false);
      });
      for (const [qs, parameter] of [
        ['include=name&exclude=status', 'exclude'],
        ['include=bogus', 'include'],
        ['exclude=metrics.bogus', 'exclude'],
        ['include=', 'include'],
        ['include=__proto__', 'include'],
        ['include=$where', 'include'],
      ] as const) {
        test(`?${qs} is refused naming ${parameter}`, () => refused(`/jobs?${qs}`, parameter));
      }
    });

    describe('dereference', () => {
      test('groups of jobs become group documents', async () => {
        const data = await list(`/jobs?dereference=groups&include=groups&equals[_id]=${jobId(4)}`);
        assert.deepEqual(data, [{ _id: jobId(4), groups: [groups[0], groups[1]] }]);
      });
      test('tasks of a job read by id carry their iteration documents', async () => {
        const res = await get(`/jobs/${jobId(2)}?dereference=tasks&include=tasks`);
        const data = res.body.data as { tasks: Record<string, { iterations: Doc[] }> };
        assert.deepEqual(data.tasks['c3d4']!.iterations, [tasks[1]]);
        assert.deepEqual(data.tasks['e5f6']!.iterations, [tasks[2]]);
      });
      test('job output is read with dereference=output and include=output,variables', async () => {
        const res = await get(`/job/${jobId(1)}?dereference=output&include=output,variables`);
        assert.deepEqual(res.body.data, { _id: jobId(1), output: { result: 'ok' }, variables: { _id: jobId(1), initiator: 'admin' } });
      });
      test('a job whose workflow defines no output answers output null', async () => {
        const res = await get(`/job/${jobId(4)}?dereference=output&include=output`);
        assert.deepEqual(res.body.data, { _id: jobId(4), output: null });
      });
      test('accounts.metrics.user expands the user without secrets', async () => {
        const data = await list(`/jobs?dereference=accounts.metrics.user&include=metrics.user&equals[_id]=${jobId(2)}`);
        assert.deepEqual(data, [{ _id: jobId(2), metrics: { user: { _id: ACCOUNT_OPERATOR, username: 'operator', firstname: 'Olga', email: 'olga@example.com', provenance: 'Local AAA', inactive: false } } }]);
      });
      test('tasks with dereference=job nest the complete parent job', async () => {
        const data = await list(`/tasks?dereference=job&equals[_id]=${taskId(4)}`);
        assert.deepEqual(data[0]!['job'], jobs[2]);
      });
      test('include can keep one field of a dereferenced job', async () => {
        const data = await list(`/tasks?dereference=job&include=job.name&equals[groups]=${GROUP_ENG}&limit=1`);
        assert.deepEqual(data, [{ _id: taskId(4), job: { name: 'Router Software Upgrade' } }]);
      });
      for (const qs of ['dereference=job', 'dereference=bogus']) {
        test(`jobs?${qs} is refused naming dereference`, () => refused(`/jobs?${qs}`, 'dereference'));
      }
      test('tasks?dereference=groups is refused naming dereference', () => refused('/tasks?dereference=groups', 'dereference'));
    });

    describe('read by id', () => {
      test('the singular /job/:id reads the same job as /jobs/:id', async () => {
        const a = await get(`/jobs/${jobId(6)}`);
        const b = await get(`/job/${jobId(6)}`);
        assert.deepEqual(a.body, b.body);
      });
      test('a task is read by its UUID', async () => {
        const res = await get(`/tasks/${taskId(2)}?include=name,status`);
        assert.deepEqual(res.body.data, { _id: taskId(2), name: 'makeData', status: 'running' });
      });
      test('an unknown job answers 404 in the envelope', async () => {
        const res = await get(`/jobs/${'f'.repeat(24)}`);
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { message: `Job ${'f'.repeat(24)} was not found`, data: null, metadata: {} });
      });
      test('a malformed job id is a 400 naming the id', () => refused('/jobs/not-an-id', 'params.id'));
      test('a job id is not a task id', () => refused(`/tasks/${jobId(1)}`, 'params.id'));
      test('search parameters are not accepted by a read', () => refused(`/jobs/${jobId(1)}?equals[status]=x`, 'equals[status]'));
    });
  });
}
