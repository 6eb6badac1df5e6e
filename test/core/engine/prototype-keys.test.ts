/**
 * Engine variables and paths with prototype names (issue 26): a `$var`
 * reference through `__proto__`, `constructor` or `prototype` is refused when
 * the workflow is saved, naming where; a variable or a task's data holding
 * such a key keeps it as own data; the search projection does the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateWorkflow } from '../../../core/src/workflows/validate.ts';
import { normalizeVariables } from '../../../core/src/engine/new-job.ts';
import { undefinedToNull } from '../../../core/src/engine/tasks/shared.ts';
import { applyProjection } from '../../../kernel/search/projection.ts';

function workflowWith(incoming: Record<string, unknown>, outgoing: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'Proto Paths',
    tasks: {
      workflow_start: { name: 'workflow_start', groups: [] },
      workflow_end: { name: 'workflow_end', groups: [] },
      a1: { name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', groups: [], variables: { incoming, outgoing } },
    },
    transitions: { workflow_start: { a1: { type: 'standard', state: 'success' } }, a1: { workflow_end: { type: 'standard', state: 'success' } }, workflow_end: {} },
  };
}

test('a $var reference through a prototype name is refused at save, naming the variable', () => {
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    const read = validateWorkflow(workflowWith({ name: 'x', value: `$var.job.${key}` }, {}));
    assert.deepEqual(read, [{ parameter: 'automation.tasks.a1.variables.incoming.value', message: `$var.job.${key}: ${key} names a prototype, not a variable` }]);
    const fromTask = validateWorkflow(workflowWith({ name: 'x', value: `$var.a1.${key}` }, {}));
    assert.equal(fromTask[0]?.message, `$var.a1.${key}: ${key} names a prototype, not a variable`);
    const write = validateWorkflow(workflowWith({ name: 'x', value: 1 }, { value: `$var.job.${key}` }));
    assert.deepEqual(write, [{ parameter: 'automation.tasks.a1.variables.outgoing.value', message: `$var.job.${key}: ${key} names a prototype, not a variable` }]);
  }
  assert.deepEqual(validateWorkflow(workflowWith({ name: 'x', value: '$var.job.my_prototype' }, { value: '$var.job.out' })), []);
});

test('job variables and task values keep a __proto__ key as own data', () => {
  const given = JSON.parse('{"settings": {"__proto__": {"hostname": "::1"}, "region": "eu"}, "__proto__": {"x": 1}}') as Record<string, unknown>;
  const variables = normalizeVariables(given);
  assert.deepEqual(Object.keys(variables), ['settings', '__proto__']);
  assert.equal(Object.getPrototypeOf(variables), Object.prototype);
  const copied = undefinedToNull(given) as Record<string, unknown>;
  assert.equal(JSON.stringify(copied), '{"settings":{"__proto__":{"hostname":"::1"},"region":"eu"},"__proto__":{"x":1}}');
  assert.equal(Object.getPrototypeOf(copied), Object.prototype);
  assert.equal(({} as Record<string, unknown>)['hostname'], undefined);
});

test('the search projection copies a stored __proto__ key as data', () => {
  const doc = JSON.parse('{"_id": "j", "variables": {"__proto__": {"hostname": "::1"}, "a": 1}}') as Record<string, unknown>;
  const out = applyProjection(doc, { kind: 'include', paths: ['variables.__proto__', 'variables.a'], dropId: false });
  assert.equal(JSON.stringify(out), '{"_id":"j","variables":{"__proto__":{"hostname":"::1"},"a":1}}');
  assert.equal(({} as Record<string, unknown>)['hostname'], undefined);
});
