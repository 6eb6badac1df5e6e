/**
 * A new job (core/src/engine/new-job.ts) shares parts with its workflow,
 * which the lookup keeps for every later start: the engine's changes are
 * made on a copy, so no job's run ever reaches the workflow or the next job.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newJob } from '../../../core/src/engine/new-job.ts';
import { Working } from '../../../core/src/engine/working.ts';
import { START } from '../../../core/src/engine/types.ts';
import type { StudioWorkflow } from '../../../core/src/engine/types.ts';

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
