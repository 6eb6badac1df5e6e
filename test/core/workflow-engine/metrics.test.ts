/**
 * `GET /workflow_engine/jobs/metrics` and `/tasks/metrics` over HTTP on the
 * real core: `{results, total}` pages counted from real jobs run by the
 * engine, filtered with the generic parameters itential-mcp sends
 * (`containsField=workflow.name`, `equalsField=app`), paged with skip/limit.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';
import { createWorkflow, failing, newVariable, startJob, workflow } from '../../helpers/engine.ts';
import { makeUser, role } from '../../helpers/users.ts';

type JobMetric = { _id: string; workflow: { name: string }; jobsComplete: number; totalRunTime: number; metrics: unknown[] };
type TaskMetric = { taskId: string; taskType: string; name: string; app: string; global: boolean; workflow: { name: string }; metrics: Array<{ totalSuccesses: number; totalErrors: number }> };

let core: RunningCore;
before(async () => {
  core = await startCore(await openTestStore());
  await createWorkflow(core, workflow('Metrics Good', { a: newVariable('x', 1) }, [['workflow_start', 'a'], ['a', 'workflow_end']]));
  await createWorkflow(core, workflow('Metrics Bad', { f: failing() }, [['workflow_start', 'f'], ['f', 'workflow_end']]));
  await createWorkflow(core, workflow('Other', { b: newVariable('y', 2) }, [['workflow_start', 'b'], ['b', 'workflow_end']]));
  for (let i = 0; i < 3; i++) await startJob(core, 'Metrics Good');
  await startJob(core, 'Metrics Bad');
  await core.core.engine.idle();
});
after(() => core.close());

const get = async <T>(path: string): Promise<{ results: T[]; total: number }> => {
  const res = await core.request(path);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { results: T[]; total: number };
};

test('job metrics count the complete jobs of each workflow, filtered on workflow.name as itential-mcp asks', async () => {
  const page = await get<JobMetric>('/workflow_engine/jobs/metrics?containsField=workflow.name&contains=Metrics&limit=100&skip=0');
  assert.equal(page.total, 2);
  const byName = new Map(page.results.map((r) => [r.workflow.name, r]));
  assert.equal(byName.get('Metrics Good')!.jobsComplete, 3);
  assert.equal(byName.get('Metrics Bad')!.jobsComplete, 0);
  assert.ok(byName.get('Metrics Good')!.totalRunTime >= 0);
  assert.deepEqual(byName.get('Metrics Good')!.metrics, []);
});

test('task metrics count successes and errors per task of a workflow, filtered on app or workflow.name', async () => {
  const bad = await get<TaskMetric>('/workflow_engine/tasks/metrics?equalsField=workflow.name&equals=Metrics%20Bad');
  assert.equal(bad.total, 1);
  assert.deepEqual(bad.results[0], { ...bad.results[0], taskId: 'f', name: 'makeData', app: 'WorkFlowEngine', global: false, workflow: { name: 'Metrics Bad' } });
  assert.equal(bad.results[0]!.metrics[0]!.totalErrors, 1);
  const good = await get<TaskMetric>('/workflow_engine/tasks/metrics?equalsField=workflow.name&equals=Metrics%20Good');
  assert.deepEqual(good.results[0]!.metrics, [{ totalSuccesses: 3, totalErrors: 0 }]);
  const byApp = await get<TaskMetric>('/workflow_engine/tasks/metrics?equalsField=app&equals=WorkFlowEngine');
  assert.equal(byApp.total, 3);
  const none = await get<TaskMetric>('/workflow_engine/tasks/metrics?equalsField=app&equals=NoSuchApp');
  assert.equal(none.total, 0, 'a filter that matches nothing answers nothing, not everything');
});

test('pages follow skip and limit while total counts them all', async () => {
  const first = await get<JobMetric>('/workflow_engine/jobs/metrics?limit=2');
  const second = await get<JobMetric>('/workflow_engine/jobs/metrics?limit=2&skip=2');
  assert.equal(first.total, 3);
  assert.deepEqual([...first.results, ...second.results].map((r) => r.workflow.name), ['Metrics Bad', 'Metrics Good', 'Other']);
});

test('a filter on a field these metrics do not have, a filter without its field, or an unknown parameter is a 400', async () => {
  for (const query of ['equalsField=status&equals=x', 'equals=x', 'colour=red', 'equalsField=__proto__&equals=x']) {
    assert.equal((await core.request(`/workflow_engine/jobs/metrics?${query}`)).status, 400, query);
  }
});

test('reading needs a workflow engine read role', async () => {
  const none = await makeUser(core, 'no-engine');
  assert.equal((await core.request('/workflow_engine/jobs/metrics', { token: none.token })).status, 403);
  const reader = await makeUser(core, 'engine-reader', { roles: [role('WorkFlowEngine', 'apiread')] });
  assert.equal((await core.request('/workflow_engine/tasks/metrics', { token: reader.token })).status, 200);
});
