/**
 * A new job (core/src/engine/new-job.ts) shares parts with its workflow,
 * which the lookup keeps for every later start: the engine changes only the
 * job's own parts (a start's first change in place, later ones on a copy),
 * so no job's run ever reaches the workflow or the next job.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newJob } from '../../../core/src/engine/new-job.ts';
import { Working } from '../../../core/src/engine/working.ts';
import { START } from '../../../core/src/engine/types.ts';
import type { StudioWorkflow } from '../../../core/src/engine/types.ts';
import { Engine } from '../../../core/src/engine/engine.ts';
import type { Authority } from '../../../core/src/engine/authority.ts';
import { findTask } from '../../../core/src/engine/tasks/index.ts';
import { SqliteStore } from '../../../kernel/store/sqlite/store.ts';
import type { Logger } from '../../../kernel/index.ts';
import { CORE_COLLECTIONS } from '../../../core/src/store/collections.ts';

const limits = { maxTaskRunsPerJob: 100, maxIterationsListed: 10, maxChildJobDepth: 3, maxJobsPerTree: 10, maxJobBytes: 1 << 20 };

function savedWorkflow(): StudioWorkflow {
  return {
    _id: 'w1',
    name: 'shared',
    tasks: {
      workflow_start: { name: 'workflow_start', groups: [] },
      a1b2: { name: 'newVariable', app: 'WorkFlowEngine', type: 'automatic', variables: { incoming: { name: 'x', value: { deep: [1] } }, outgoing: { value: '$var.job.x' } } },
      workflow_end: { name: 'workflow_end', groups: [] },
    },
    transitions: { workflow_start: { a1b2: { type: 'standard', state: 'success' } }, a1b2: { workflow_end: { type: 'standard', state: 'success' } }, workflow_end: {} },
    groups: ['g1'],
  } as StudioWorkflow;
}

test("a job's changes never reach the workflow it was started from, nor the next job started from it", () => {
  const workflow = savedWorkflow();
  const before = structuredClone(workflow);
  let clock = 1_000;
  for (let i = 0; i < 2; i += 1) {
    const fresh = newJob(workflow, { variables: { x: 0 } }, { id: 'u1', username: 'admin' }, null, clock);
    assert.equal(fresh.tasks['a1b2']!.status, 'incomplete', 'each job starts from the workflow as saved');
    assert.deepEqual(fresh.tasks['a1b2']!.iterations, []);
    const w = new Working(fresh, () => (clock += 1), 'u1', limits);
    w.follow(START, 'success');
    const [claimed] = w.claimed;
    w.job.tasks['a1b2']!.variables!.incoming!['value'] = 'changed by the run';
    (w.job.transitions['a1b2'] as Record<string, unknown>)['added'] = { type: 'standard', state: 'error' };
    w.complete(claimed!.iteration, { finishState: 'success', outgoing: { value: 7 } });
    w.job.groups.push('g2');
    assert.equal(w.job.status, 'complete');
    assert.deepEqual(workflow, before, 'the workflow is as saved');
    assert.equal(fresh.tasks['a1b2']!.status, 'incomplete', 'the new job itself is left as made');
  }
});

/** An engine on a throwaway store, with the built-in tasks. */
function engineOn(store: SqliteStore, workflow: StudioWorkflow, maxJobBytes = 1 << 20): Engine {
  const logger = { isDebugEnabled: () => false, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
  const authority: Authority = { refusal: async () => null, rolesFor: () => [] };
  return new Engine({ store, logger, workflows: { byName: async (name) => (name === workflow.name ? workflow : null) }, findTask, processTasksOnStart: false, limits: { ...limits, maxJobBytes }, authority, now: () => 1_000 });
}

test("a start changes its new job in place, and no job's run reaches the workflow it was started from or the next job", async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  const workflow = savedWorkflow();
  const before = structuredClone(workflow);
  const engine = engineOn(store, workflow);
  const initiator = { id: 'u1', username: 'admin' };
  for (let i = 0; i < 2; i += 1) {
    const { job } = await engine.start('shared', { variables: { x: i } }, initiator);
    assert.equal(job.status, 'complete');
    assert.deepEqual(job.tasks['a1b2']!.iterations.length, 1, 'each job starts from the workflow as saved, not from the last job');
    assert.deepEqual(job.variables['x'], { deep: [1] }, 'the task set the variable from its own incoming');
    assert.deepEqual(workflow, before, 'the workflow is as saved');
    assert.notEqual(job.tasks['a1b2'], workflow.tasks['a1b2'], "the job's task entries are its own");
    assert.notEqual(job.groups, workflow.groups, "the job's groups are its own");
  }
  await engine.idle();
  await store.close();
});

test('a first change that makes the new job too large is dropped, and the job as it was made is stored in error', async () => {
  const store = SqliteStore.open({ dataDir: ':memory:', collections: CORE_COLLECTIONS });
  const big = 'x'.repeat(8_000);
  const workflow = savedWorkflow();
  workflow.tasks['a1b2']!.variables!.incoming!['value'] = big;
  const engine = engineOn(store, workflow, 6_000);
  const { job } = await engine.start('shared', { variables: { x: 0 } }, { id: 'u1', username: 'admin' });
  assert.equal(job.status, 'error');
  assert.deepEqual(job.error.map((e) => e.message), ['job exceeded workflowEngine.maxJobBytes (6000)']);
  assert.equal(job.variables['x'], 0, 'the variable the dropped change set is not there');
  assert.equal(job.tasks['a1b2']!.status, 'incomplete', 'the job is as it was made, not as the dropped change left it');
  assert.deepEqual(job.tasks['a1b2']!.iterations, []);
  const stored = await store.collection('jobs').findById(job._id);
  assert.equal(stored?.['status'], 'error');
  await engine.idle();
  await store.close();
});
