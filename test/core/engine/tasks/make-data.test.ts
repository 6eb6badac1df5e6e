/** makeData fills <!name!> placeholders and reads the text as outputType. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeData } from '../../../../core/src/engine/tasks/make-data.ts';
import { assertTaskError, run } from './context.ts';

test('makeData fills a string template', async () => {
  const outcome = await run(makeData, { incoming: { input: 'host <!host!> port <!port!> <!host!>', outputType: 'string', variables: { host: 'r1', port: 22 } } });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { output: 'host r1 port 22 r1' } });
});

test('makeData json inserts strings raw and other values as JSON', async () => {
  const outcome = await run(makeData, {
    incoming: { input: '{"name": "<!name!>", "tags": <!tags!>, "n": <!n!>, "none": <!none!>}', outputType: 'json', variables: { name: 'x', tags: ['a', 'b'], n: 1.5, none: null } },
  });
  assert.deepEqual(outcome, { finishState: 'success', outgoing: { output: { name: 'x', tags: ['a', 'b'], n: 1.5, none: null } } });
});

test('makeData reads numbers and booleans', async () => {
  assert.deepEqual((await run(makeData, { incoming: { input: ' <!a!>.5 ', outputType: 'number', variables: { a: 12 } } })).outgoing, { output: 12.5 });
  assert.deepEqual((await run(makeData, { incoming: { input: '<!flag!>', outputType: 'boolean', variables: { flag: 'TRUE' } } })).outgoing, { output: true });
  assert.deepEqual((await run(makeData, { incoming: { input: 'false', outputType: 'boolean' } })).outgoing, { output: false });
});

test('makeData refuses results that do not read as the outputType', async () => {
  await assertTaskError(makeData, { incoming: { input: '{"a": <!a!>}', outputType: 'json', variables: { a: 'unquoted' } } }, /^output is not valid JSON/);
  await assertTaskError(makeData, { incoming: { input: '12abc', outputType: 'number' } }, /^output is not a number: "12abc"$/);
  await assertTaskError(makeData, { incoming: { input: '  ', outputType: 'number' } }, /^output is not a number/);
  await assertTaskError(makeData, { incoming: { input: 'yes', outputType: 'boolean' } }, /^output is not true or false: "yes"$/);
});

test('makeData refuses missing placeholders and bad incoming values', async () => {
  await assertTaskError(makeData, { incoming: { input: '<!a!> <!b!>', outputType: 'string', variables: { a: 1 } } }, /^variables has no value for placeholder <!b!>$/);
  await assertTaskError(makeData, { incoming: { input: '<!toString!>', outputType: 'string', variables: {} } }, /no value for placeholder <!toString!>/);
  await assertTaskError(makeData, { incoming: { input: 5, outputType: 'string' } }, /^input must be a string$/);
  await assertTaskError(makeData, { incoming: { input: 'x', outputType: 'xml' } }, /^outputType must be one of string, json, number, boolean$/);
  await assertTaskError(makeData, { incoming: { input: 'x', outputType: 'string', variables: [1] } }, /^variables must be an object$/);
});
