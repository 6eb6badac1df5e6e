/**
 * The world every golden case runs in: the search fixtures in a fresh store,
 * and, once a core serves it, a running job with a waiting manual task
 * (`{job}`, `{task}`), a job in error (`{errjob}`) and the fixture ids by the
 * names golden cases use for them (golden-runner.ts).
 */
import { ACCOUNT_ADMIN, ACCOUNT_OPERATOR, accounts, GROUP_ENG, GROUP_OPS, groups, jobId, jobs, taskId, tasks } from '../fixtures/search-data.ts';
import type { RunningCore } from '../helpers/core.ts';
import { createWorkflow, failing, job, manual, runningTask, startJob, workflow } from '../helpers/engine.ts';
import { openTestStore } from '../helpers/stores.ts';
import type { Store } from '../../kernel/store/types.ts';

export async function goldenStore(): Promise<Store> {
  const store = await openTestStore();
  await store.collection('jobs').insertMany(jobs);
  await store.collection('tasks').insertMany(tasks);
  await store.collection('groups').insertMany(groups);
  await store.collection('accounts').insertMany(accounts);
  return store;
}

/** Starts the golden jobs on `core` and answers the ids golden cases name. */
export async function goldenIds(core: RunningCore): Promise<Record<string, string>> {
  await createWorkflow(core, workflow('legacy-wait', { c3d4: manual({ approved: '$var.job.approved' }) }, [['workflow_start', 'c3d4'], ['c3d4', 'workflow_end']]));
  await createWorkflow(core, workflow('legacy-fails', { f00d: failing() }, [['workflow_start', 'f00d'], ['f00d', 'workflow_end']]));
  const running = await startJob(core, 'legacy-wait');
  const errjob = await startJob(core, 'legacy-fails');
  await job(core, errjob);
  const admin = (await core.core.auth.findAccount('admin'))!['_id'] as string;
  return {
    job: running, task: await runningTask(core, running, 'c3d4'), errjob, admin,
    GOPS: GROUP_OPS, GENG: GROUP_ENG, ALICE: ACCOUNT_ADMIN, OLGA: ACCOUNT_OPERATOR,
    ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`J${n}`, jobId(n)])),
    ...Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`T${n}`, taskId(n)])),
  };
}
