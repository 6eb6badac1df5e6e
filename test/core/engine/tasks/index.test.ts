/** The built-in task list and its lookup by app and name. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtInTasks, findTask } from '../../../../core/src/engine/tasks/index.ts';

test('every built-in task is listed once under its app', () => {
  const keys = builtInTasks.map((task) => `${task.app}.${task.name}`).sort();
  assert.deepEqual(keys, [
    'NSOManager.restAction',
    'NSOManager.restQuery',
    'OrchestratorManager.restAction',
    'OrchestratorManager.restQuery',
    'WorkFlowEngine.childJob',
    'WorkFlowEngine.delay',
    'WorkFlowEngine.evaluation',
    'WorkFlowEngine.forEach',
    'WorkFlowEngine.makeData',
    'WorkFlowEngine.merge',
    'WorkFlowEngine.newVariable',
    'WorkFlowEngine.pop',
    'WorkFlowEngine.push',
    'WorkFlowEngine.query',
    'WorkFlowEngine.shift',
    'WorkFlowEngine.transformation',
  ]);
});

test('the job-variable utilities and delay are operations, the rest automatic', () => {
  const operations = builtInTasks.filter((task) => task.type === 'operation').map((task) => task.name).sort();
  assert.deepEqual(operations, ['delay', 'newVariable', 'pop', 'push', 'shift']);
  assert.ok(builtInTasks.every((task) => task.type === 'operation' || task.type === 'automatic'));
});

test('findTask matches app and name exactly', () => {
  assert.equal(findTask('WorkFlowEngine', 'query')?.name, 'query');
  assert.equal(findTask('OrchestratorManager', 'restAction')?.app, 'OrchestratorManager');
  assert.equal(findTask('WorkFlowEngine', 'restAction'), undefined);
  assert.equal(findTask('workflowengine', 'query'), undefined);
  assert.equal(findTask('WorkFlowEngine', 'toString'), undefined);
  assert.equal(findTask('WorkFlowEngine', 'nothing'), undefined);
});
