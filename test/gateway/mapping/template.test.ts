/**
 * Path templates of core calls: each value is one encoded path segment, and
 * a value the legacy request lacks is named instead of leaving `//` behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillPath, MissingPathValue } from '../../../gateway/src/mapping/template.ts';

test('a path value is percent-encoded into one segment, so it cannot reach another route', () => {
  const path = fillPath('/operations-manager/jobs/{body.job_id}/tasks/{body.task_id}/finish', { body: { job_id: '../../authorization/accounts', task_id: 'a b?c#d' } });
  assert.equal(path, '/operations-manager/jobs/..%2F..%2Fauthorization%2Faccounts/tasks/a%20b%3Fc%23d/finish');
  assert.equal(fillPath('/x/{params.id}', { params: { id: 42 } }), '/x/42');
});

test('a missing, null or empty path value is refused naming the legacy field', () => {
  for (const body of [{}, { task_id: null }, { task_id: '' }]) {
    assert.throws(() => fillPath('/operations-manager/tasks/{body.task_id}/release', { body }), (err: unknown) => err instanceof MissingPathValue && err.message === 'task_id is required');
  }
});

test('an object or list where a path value belongs is refused naming the field', () => {
  for (const value of [{ $ne: 1 }, ['a'], true]) {
    assert.throws(() => fillPath('/operations-manager/jobs/{body.job_id}', { body: { job_id: value } }), (err: unknown) => err instanceof MissingPathValue && err.message === 'job_id must be a string or a number');
  }
});
