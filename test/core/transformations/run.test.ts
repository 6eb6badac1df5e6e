/**
 * Running transformations over HTTP on the real core: both body forms,
 * extractOutput, incoming and OUTPUT schema failures named, hostile mappings
 * stopped quickly without stalling the core, and the workflow
 * `transformation` task running a saved transformation inside a job.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { createWorkflow, job, startJob, workflow } from '../../helpers/engine.ts';
import { BASKET, createOk, fruitPicker, parameters, sender } from './helpers.ts';
import type { Json } from './helpers.ts';
import { timingSleep } from '../../helpers/wait.ts';

let core: RunningCore;
let picker: string;
before(async () => {
  core = await startCore((await openTestStore()));
  picker = (await createOk(send, fruitPicker('Picker')))['_id'] as string;
});
after(() => core.close());

const send = sender(() => core);
const run = (id: string, body: unknown): Promise<JsonResponse> => send('POST', `/transformations/${id}`, body);

/** A transformation with no incoming values whose mapping is `mapping`. */
async function withMapping(name: string, mapping: string, outgoing: Json[] = [{ $id: 'out' }]): Promise<string> {
  return (await createOk(send, { name, incoming: [], outgoing, mapping }))['_id'] as string;
}

function message(res: JsonResponse): string {
  return (res.body as { message: string }).message;
}

test('a run answers the values keyed by outgoing $id, from the wrapped or the bare body', async () => {
  assert.deepEqual(await run(picker, { incoming: { basket: BASKET }, options: {} }), await run(picker, { basket: BASKET }));
  const res = await run(picker, { incoming: { basket: BASKET } });
  assert.deepEqual([res.status, res.body], [200, { fruit: 'apple' }]);
  const two = await createOk(send, {
    name: 'Two Out', incoming: [{ $id: 'n', type: 'integer' }], outgoing: [{ $id: 'double', type: 'integer' }, { $id: 'text', type: 'string' }],
    mapping: '{"text": $string(n), "double": n * 2}',
  });
  const both = await run(two['_id'] as string, { incoming: { n: 21 }, options: { extractOutput: true } });
  // extractOutput needs exactly one outgoing schema; with two the keyed object comes back, in schema order.
  assert.deepEqual([both.status, JSON.stringify(both.body)], [200, '{"double":42,"text":"21"}']);
});

test('extractOutput answers the bare value of the one outgoing schema', async () => {
  const res = await run(picker, { incoming: { basket: BASKET }, options: { extractOutput: true } });
  assert.deepEqual([res.status, res.body], [200, 'apple']);
  const nullish = await withMapping('Null Out', '{"out": null}');
  const empty = await run(nullish, { incoming: {}, options: { extractOutput: true } });
  assert.deepEqual([empty.status, empty.body], [200, null]);
  const bad = await run(picker, { incoming: { basket: BASKET }, options: { extractOutput: 'yes', mask: true } });
  assert.deepEqual([bad.status, parameters(bad)], [400, ['options.mask', 'options.extractOutput']]);
});

test('incoming values that fail their schemas are a 400 naming each $id and path', async () => {
  const res = await run(picker, { incoming: { basket: { items: [{ name: 3, kind: 'fruit' }, { kind: 'fruit' }] }, extra: 1 } });
  assert.equal(res.status, 400);
  assert.match(message(res), /^Invalid incoming values for transformation "Picker": /);
  assert.deepEqual((res.body as Json)['details'], [
    { parameter: 'incoming.extra', message: 'is not an incoming $id of this transformation (its incoming $ids: basket)' },
    { parameter: 'incoming.basket.items[0].name', message: 'must be string' },
    { parameter: 'incoming.basket.items[1].name', message: "must have required property 'name'" },
  ]);
  const missing = await run(picker, { incoming: {} });
  assert.deepEqual((missing.body as Json)['details'], [{ parameter: 'incoming.basket', message: 'is missing: incoming schema "basket" needs a value' }]);
});

test('a mapping whose result fails the outgoing schemas is a 400 that says the OUTPUT failed', async () => {
  // No fruit in the basket: the mapping gives no value for `fruit`.
  const none = await run(picker, { basket: { items: [{ name: 'leek', kind: 'vegetable' }] } });
  assert.equal(none.status, 400);
  assert.match(message(none), /^The OUTPUT of transformation "Picker" does not match its outgoing schemas: /);
  assert.deepEqual(parameters(none), ['output.fruit']);
  const wrongType = await withMapping('Wrong Type', '{"out": 5, "stray": 1}', [{ $id: 'out', type: 'string' }]);
  const res = await run(wrongType, {});
  assert.equal(res.status, 400);
  assert.deepEqual((res.body as Json)['details'], [
    { parameter: 'output.stray', message: 'is not an outgoing $id of this transformation' },
    { parameter: 'output.out', message: 'must be string (outgoing schema "out")' },
  ]);
  const notObject = await withMapping('Not Object', '[1, 2]');
  const arr = await run(notObject, {});
  assert.equal(arr.status, 400);
  assert.equal(message(arr), 'The OUTPUT of transformation "Not Object" is invalid: the mapping produced an array, not an object keyed by the outgoing $ids (out)');
});

test('a mapping that fails at run time, or a transformation with no mapping, is a 400', async () => {
  const failing = await withMapping('Fails', '{"out": $number("abc")}');
  const res = await run(failing, {});
  assert.equal(res.status, 400);
  assert.match(message(res), /^The mapping of transformation "Fails" failed .+\(D3030\)$/);
  const unmapped = (await createOk(send, { name: 'Unmapped' }))['_id'] as string;
  const none = await run(unmapped, {});
  assert.deepEqual([none.status, message(none)], [400, 'Transformation "Unmapped" has no mapping to run']);
  assert.equal((await run(picker, [1])).status, 400);
});

test('an endless loop and runaway recursion are stopped with a 400 within the time limit', { timeout: 15_000 }, async () => {
  const loop = await withMapping('Loop', '($f := function($x) { $f($x + 1) }; {"out": $f(0)})');
  const started = Date.now();
  const res = await run(loop, {});
  const took = Date.now() - started;
  assert.equal(res.status, 400);
  assert.equal(message(res), 'The mapping of transformation "Loop" was stopped: it ran longer than 1000 ms');
  assert.ok(took < 2500, `took ${took} ms`);
  const deep = await withMapping('Deep', '($f := function($x) { 1 + $f($x + 1) }; {"out": $f(0)})');
  const stopped = await run(deep, {});
  assert.equal(stopped.status, 400);
  assert.match(message(stopped), /^The mapping of transformation "Deep" was stopped: it nested deeper than \d+ levels/);
});

test('a regular expression that backtracks forever is killed and the core keeps answering meanwhile', { timeout: 15_000 }, async () => {
  const redos = await withMapping('Backtrack', '{"out": $match($pad("", 34, "a") & "b", /^(a+)+$/)}');
  const started = Date.now();
  const pending = run(redos, {});
  await timingSleep(200, 'a timing test: the read must land while the sandbox worker is backtracking, and the run announces no start to wait for');
  const during = Date.now();
  const read = await send('GET', `/transformations/${picker}`);
  const readTook = Date.now() - during;
  const res = await pending;
  const took = Date.now() - started;
  assert.equal(read.status, 200);
  assert.ok(readTook < 300, `a read took ${readTook} ms while the mapping ran`);
  assert.equal(res.status, 400);
  assert.equal(message(res), 'The mapping of transformation "Backtrack" was stopped: it ran longer than 1000 ms');
  assert.ok(took < 3000, `took ${took} ms`);
  // The killed worker is replaced: runs go on.
  assert.deepEqual((await run(picker, { basket: BASKET })).body, { fruit: 'apple' });
});

test('the workflow transformation task runs a saved transformation and the job keeps the mapped value', async () => {
  const tasks = {
    a1: {
      name: 'transformation', app: 'WorkFlowEngine', type: 'automatic',
      variables: { incoming: { tr_id: picker, variableMap: '$var.job.order', options: { extractOutput: true } }, outgoing: { output: '$var.job.picked' } },
    },
  };
  await createWorkflow(core, workflow('Pick Fruit', tasks, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  const ok = await job(core, await startJob(core, 'Pick Fruit', { order: { basket: BASKET } }));
  assert.equal(ok.status, 'complete', JSON.stringify(ok.error));
  assert.equal(ok.variables['picked'], 'apple');

  // Values that fail the incoming schema end the task in error, with the run's message.
  const bad = await job(core, await startJob(core, 'Pick Fruit', { order: { basket: { items: 'none' } } }));
  assert.equal(bad.status, 'error');
  assert.equal(bad.tasks['a1']!.finish_state, 'error');
  assert.match(String(bad.error[0]!.message), /^Invalid incoming values for transformation "Picker": incoming\.basket\.items must be array/);
  assert.equal(bad.variables['picked'], undefined);
});
