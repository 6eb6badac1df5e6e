/** childJob starts one child or a loop of children and succeeds only when all complete. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { childJob } from '../../../../core/src/engine/tasks/child-job.ts';
import { assertTaskError, fakeServices, run } from './context.ts';

const sources = { jobVariables: { device: 'r1', unset: undefined }, taskOutputs: { b2: { result: [1, 2] } } };

test('childJob without a loop starts one child with the resolved variables', async () => {
  const services = fakeServices();
  const outcome = await run(childJob, {
    ...sources,
    services,
    incoming: {
      task: '',
      workflow: 'Child',
      variables: { device: { task: 'job', value: 'device' }, mode: { task: 'static', value: 'fast' }, result: { task: 'b2', value: 'result' } },
      data_array: [{ ignored: true }],
      transformation: '',
      loopType: '',
    },
  });
  const variables = { device: 'r1', mode: 'fast', result: [1, 2] };
  assert.deepEqual(services.childJobCalls, [{ requests: [{ workflow: 'Child', variables }], mode: 'parallel' }]);
  assert.deepEqual(outcome, {
    finishState: 'success',
    outgoing: { job_details: { _id: 'child0', name: 'Child', status: 'complete', variables, output: { echoed: variables }, error: null } },
  });
});

test('childJob passes undefined values to the child as null, at any depth', async () => {
  const services = fakeServices();
  await run(childJob, {
    ...sources,
    services,
    incoming: {
      workflow: 'Child',
      variables: {
        missingJob: { task: 'job', value: 'nope' },
        unsetJob: { task: 'job', value: 'unset' },
        missingTask: { task: 'ffff', value: 'result' },
        missingOutput: { task: 'b2', value: 'other' },
        staticUndefined: { task: 'static' },
        nested: { task: 'static', value: { a: undefined, list: [undefined, 1] } },
      },
    },
  });
  const variables = services.childJobCalls[0]?.requests[0]?.variables;
  assert.deepEqual(variables, { missingJob: null, unsetJob: null, missingTask: null, missingOutput: null, staticUndefined: null, nested: { a: null, list: [null, 1] } });
  assert.ok(variables !== undefined && Object.hasOwn(variables, 'missingJob'), 'the key is present, not dropped');
});

test('childJob loops start one child per item, item keys spread over the resolved variables', async () => {
  for (const loopType of ['parallel', 'sequential'] as const) {
    const services = fakeServices();
    const outcome = await run(childJob, {
      services,
      incoming: {
        workflow: 'Child',
        variables: { shared: { task: 'static', value: 's' }, name: { task: 'static', value: 'default' } },
        data_array: [{ name: 'one' }, { other: undefined }],
        loopType,
      },
    });
    assert.deepEqual(services.childJobCalls, [
      {
        requests: [
          { workflow: 'Child', variables: { shared: 's', name: 'one' } },
          { workflow: 'Child', variables: { shared: 's', name: 'default', other: null } },
        ],
        mode: loopType,
      },
    ]);
    assert.equal(outcome.finishState, 'success');
    const details = outcome.outgoing['job_details'];
    assert.ok(Array.isArray(details));
    assert.deepEqual(details.map((d: { _id: string; status: string }) => [d._id, d.status]), [['child0', 'complete'], ['child1', 'complete']]);
  }
});

test('childJob loops over an empty data_array start nothing and succeed', async () => {
  const services = fakeServices();
  for (const data_array of [[], '', undefined]) {
    const outcome = await run(childJob, { services, incoming: { workflow: 'Child', variables: {}, data_array, loopType: 'parallel' } });
    assert.deepEqual(outcome, { finishState: 'success', outgoing: { job_details: [] } });
  }
  assert.equal(services.childJobCalls.length, 0);
});

test('childJob loops run each item through the transformation when one is named', async () => {
  const services = fakeServices({ transformation: (_id, incoming) => ({ host: `h-${String(incoming['n'])}` }) });
  await run(childJob, { services, incoming: { workflow: 'Child', variables: {}, data_array: [{ n: 1 }, { n: 2 }], transformation: 'tr1', loopType: 'sequential' } });
  assert.deepEqual(services.transformationCalls.map((call) => [call.id, call.incoming]), [['tr1', { n: 1 }], ['tr1', { n: 2 }]]);
  assert.deepEqual(services.childJobCalls[0]?.requests.map((r) => r.variables), [{ host: 'h-1' }, { host: 'h-2' }]);
  assert.equal(services.childJobCalls[0]?.mode, 'sequential');

  const bad = fakeServices({ transformation: () => 'not an object' });
  await assertTaskError(childJob, { services: bad, incoming: { workflow: 'C', data_array: [{}], transformation: 'tr1', loopType: 'parallel' } }, /transformation tr1 did not return an object for data_array\[0\]/);
});

test('childJob ends in error, naming the children, when any child is not complete', async () => {
  const services = fakeServices({ childStatus: (_request, i) => (i === 1 ? 'error' : i === 2 ? 'canceled' : 'complete') });
  const outcome = await run(childJob, { services, incoming: { workflow: 'Child', variables: {}, data_array: [{}, {}, {}], loopType: 'parallel' } });
  assert.equal(outcome.finishState, 'error');
  assert.equal(outcome.error, '2 of 3 child job(s) did not complete: Child (child1): error; Child (child2): canceled');
  assert.equal((outcome.outgoing['job_details'] as unknown[]).length, 3, 'details are kept for the error path');

  const single = await run(childJob, { services: fakeServices({ childStatus: () => 'error' }), incoming: { workflow: 'Child', variables: {} } });
  assert.equal(single.finishState, 'error');
  assert.equal(single.error, '1 of 1 child job(s) did not complete: Child (child0): error');
});

test('childJob starts nothing when the job is already aborted', async () => {
  const services = fakeServices();
  const outcome = await run(childJob, { services, signal: AbortSignal.abort(), incoming: { workflow: 'Child', variables: {} } });
  assert.equal(outcome.finishState, 'error');
  assert.equal(services.childJobCalls.length, 0);
});

test('childJob refuses bad input', async () => {
  await assertTaskError(childJob, { incoming: { variables: {} } }, /^workflow must be a non-empty string$/);
  await assertTaskError(childJob, { incoming: { workflow: 'C', loopType: 'forEach' } }, /^loopType must be "", "parallel" or "sequential"$/);
  await assertTaskError(childJob, { incoming: { workflow: 'C', variables: [] } }, /^variables must be an object$/);
  await assertTaskError(childJob, { incoming: { workflow: 'C', variables: { a: 'raw' } } }, /^variables\.a must be an object \{task, value\}$/);
  await assertTaskError(childJob, { incoming: { workflow: 'C', variables: { a: { task: 'job', value: 3 } } } }, /^variables\.a must name a variable/);
  await assertTaskError(childJob, { incoming: { workflow: 'C', data_array: { a: 1 }, loopType: 'parallel' } }, /^data_array must be an array when loopType is set$/);
  await assertTaskError(childJob, { incoming: { workflow: 'C', data_array: [{}, 3], loopType: 'parallel' } }, /^data_array\[1\] must be an object/);
  await assertTaskError(childJob, { incoming: { workflow: 'C', transformation: 5 } }, /^transformation must be a string$/);
});
