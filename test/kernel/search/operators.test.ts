/**
 * Every operator, value type and the q language, through HTTP, with the exact
 * ordered answer, on every store that runs here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { GROUP_ENG, GROUP_OPS, jobId, label, taskId } from '../../fixtures/search-data.ts';
import { startSearchFixture } from '../../helpers/search-fixture.ts';
import type { SearchFixture } from '../../helpers/search-fixture.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { searchStoreFactories } from '../../helpers/stores.ts';

interface Envelope {
  message: string;
  data: Array<Record<string, unknown>>;
  metadata: { total: number };
}

const q = (obj: unknown): string => `q=${encodeURIComponent(JSON.stringify(obj))}`;

/** [query string, expected labels in answer order] for GET /operations-manager/jobs. */
const JOB_CASES: Array<[string, string[]]> = [
  ['', ['J5', 'J1', 'J2', 'J3', 'J4', 'J6']],
  ['equals[status]=complete', ['J1', 'J6']],
  ['equals[name]=Port%20Turn-Up', ['J1', 'J2']],
  ['equals[name]=Port+Turn-Up', ['J1', 'J2']],
  ['equals%5Bstatus%5D=running', ['J2']],
  ['starts-with[name]=Port', ['J1', 'J2']],
  ['starts-with[name]=(a%2B)%2B%24', ['J5']],
  ['starts-with[name]=port', []],
  ['ends-with[name]=Job', ['J6']],
  ['ends-with[name]=.name', ['J5']],
  ['contains[name]=Turn', ['J1', 'J2']],
  ['contains[name]=.*', []],
  ['contains[name]=%C3%9Cn%C3%AF', ['J6']],
  ['in[status]=running,paused', ['J2', 'J4']],
  ['in[name]=VLAN%20Provisioning%2C%20East,%C3%9Cnicode%20Job,%C3%9Cn%C3%AFcode%20Job', ['J4', 'J6']],
  ['in[name]=VLAN%20Provisioning,%20East', []],
  ['not-in[status]=complete,canceled', ['J2', 'J3', 'J4']],
  ['gt[metrics.start_time]=2024-06-01', ['J5', 'J6']],
  ['gte[metrics.start_time]=2024-06-01', ['J5', 'J3', 'J4', 'J6']],
  ['lt[metrics.start_time]=2024-03-05T12:30:00', ['J1']],
  ['lte[metrics.start_time]=2024-03-05T12:30:00', ['J1', 'J2']],
  ['lte[metrics.start_time]=2024-03-05t12:30:00', ['J1', 'J2']],
  ['gte[metrics.start_time]=2024-03-05T14:30:00%2B02:00', ['J5', 'J2', 'J3', 'J4', 'J6']],
  [`equals[metrics.start_time]=${Date.parse('2024-01-10T08:00:00Z')}`, ['J1']],
  ['lt[metrics.start_time]=2024-12-31T23:59:59.999Z', ['J1', 'J2', 'J3', 'J4']],
  ['equals[created]=2024-01-10T08:00:00Z', ['J1']],
  ['gte[last_updated]=2025-01-01', ['J5', 'J6']],
  ['lt[metrics.progress]=0.5', ['J5', 'J3']],
  ['gte[metrics.progress]=0.5', ['J1', 'J2', 'J4', 'J6']],
  ['equals[metrics.progress]=1', ['J1', 'J6']],
  [`equals[groups]=${GROUP_OPS}`, ['J1', 'J4']],
  [`not-in[groups]=${GROUP_OPS}`, ['J5', 'J2', 'J3', 'J6']],
  [`in[groups]=${GROUP_OPS},${GROUP_ENG}`, ['J1', 'J3', 'J4']],
  [`equals[_id]=${jobId(3)}`, ['J3']],
  [`equals[_id]=${jobId(3).toUpperCase()}`, ['J3']],
  [`in[_id]=${jobId(1)},${jobId(3)}`, ['J1', 'J3']],
  [`equals[ancestors]=${jobId(1)}`, ['J1']],
  ['equals[metrics.user]=0000000000000000000000c2', ['J2', 'J4']],
  ['contains[description]=upgrade', ['J3']],
  ['contains[description]=upgrading', ['J3']],
  ['contains[description]=turn%20vlan', ['J1', 'J2', 'J4']],
  ['contains[description]=%22core-rtr-07%22', ['J1', 'J3']],
  ['contains[description]=turn%20-market', ['J1']],
  ['contains[description]=%22east%20site%22%20nothing', ['J4']],
  [q({ or: [{ equals: { status: 'error' } }, { 'starts-with': { name: 'VLAN' } }] }), ['J3', 'J4']],
  [q({ not: { in: { status: ['complete', 'canceled'] } } }), ['J2', 'J3', 'J4']],
  [q({ and: [{ gte: { 'metrics.progress': 0.25 } }, { not: { equals: { groups: GROUP_OPS } } }] }), ['J2', 'J3', 'J6']],
  [q({ in: { status: 'running,paused' } }), ['J2', 'J4']],
  [q({ 'not-in': { status: ['complete', 'canceled', 'error'] } }), ['J2', 'J4']],
  [q({ lt: { 'metrics.start_time': Date.parse('2024-03-01T00:00:00Z') } }), ['J1']],
  [`equals[status]=complete&${q({ gt: { 'metrics.start_time': '2024-06-01' } })}`, ['J6']],
  [`contains[description]=acme&${q({ not: { equals: { status: 'paused' } } })}`, ['J1']],
];

/**
 * Where the stores must differ, as docs/deployment.md says: the embedded
 * store's full-text index matches a phrase as a sequence of stemmed words,
 * MongoDB as raw text (ignoring case and diacritics only); MongoDB drops
 * English stop words from a query, the embedded store does not.
 * [query string, on SQLite, on MongoDB].
 */
const TEXT_DIFFERENCES: Array<[string, string[], string[]]> = [
  ['contains[description]=%22CORE-RTR-07%22', ['J1', 'J3'], ['J1', 'J3']],
  ['contains[description]=%22core%20rtr%2007%22', ['J1', 'J3'], []],
  ['contains[description]=%22upgrading%20ios%22', ['J3'], []],
  ['contains[description]=%22upgrade%20ios%22', ['J3'], ['J3']],
  ['contains[description]=%22to%20see%22', ['J5'], ['J5']],
  ['contains[description]=to', ['J5'], []],
];

const TASK_CASES: Array<[string, string[]]> = [
  ['', ['T4', 'T5', 'T2', 'T3', 'T1']],
  [`equals[job._id]=${jobId(2)}`, ['T2', 'T3']],
  ['equals[status]=running', ['T2']],
  ['equals[type]=manual', ['T2']],
  ['equals[scheduled]=true', ['T3']],
  ['equals[deprecated]=false', ['T4', 'T2', 'T3', 'T1']],
  [`in[_id]=${taskId(1)},${taskId(4)}`, ['T4', 'T1']],
  ['contains[description]=job', ['T4', 'T3', 'T1']],
  ['gte[metrics.start_time]=2024-03-05', ['T4', 'T2', 'T3']],
  ['equals[metrics.finish_state]=success', ['T3', 'T1']],
  ['starts-with[job.name]=Port', ['T2', 'T3', 'T1']],
  [`equals[groups]=${GROUP_ENG}`, ['T4', 'T5']],
];

for (const factory of searchStoreFactories()) {
  describe(`search operators on ${factory.name}`, { skip: factory.skip ?? false }, () => {
    let fixture: SearchFixture;
    let core: RunningCore;
    before(async () => {
      fixture = await startSearchFixture(factory);
      ({ core } = fixture);
    });
    after(async () => {
      await fixture.close();
    });

    for (const [queryString, expected] of JOB_CASES) {
      test(`jobs?${decodeURIComponent(queryString)} selects ${expected.join(',') || 'nothing'}`, async () => {
        const res = await core.request(`/operations-manager/jobs?${queryString}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const body = res.body as Envelope;
        assert.deepEqual(body.data.map((d) => label(d['_id'])), expected);
        assert.equal(body.metadata.total, expected.length);
      });
    }

    for (const [queryString, onSqlite, onMongo] of TEXT_DIFFERENCES) {
      const expected = factory.kind === 'sqlite' ? onSqlite : onMongo;
      test(`jobs?${decodeURIComponent(queryString)} selects ${expected.join(',') || 'nothing'} on ${factory.name}`, async () => {
        const res = await core.request(`/operations-manager/jobs?${queryString}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual((res.body as Envelope).data.map((d) => label(d['_id'])), expected);
      });
    }

    for (const [queryString, expected] of TASK_CASES) {
      test(`tasks?${decodeURIComponent(queryString)} selects ${expected.join(',') || 'nothing'}`, async () => {
        const res = await core.request(`/operations-manager/tasks?${queryString}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const body = res.body as Envelope;
        assert.deepEqual(body.data.map((d) => label(d['_id'])), expected);
        assert.equal(body.metadata.total, expected.length);
      });
    }
  });
}
