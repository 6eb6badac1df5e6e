/**
 * Every surface that saves a user's schema refuses, at save, a pattern RE2
 * cannot run, with a 400 naming the pattern's path; the two
 * reproductions (a nested-quantifier pattern at job start, uniqueItems over
 * 20,000 objects) answer in milliseconds; a workflow stored before these
 * checks is refused at job start naming its pattern.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { startCore } from '../../helpers/core.ts';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { createWorkflow, newVariable, workflow } from '../../helpers/engine.ts';

type Json = Record<string, unknown>;
let core: RunningCore;
let automationId: string;
const LOOKBEHIND = 'lookbehind is not supported (patterns must run in linear time)';

const send = (method: string, path: string, body?: unknown): Promise<JsonResponse> =>
  core.request(path, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
const simple = (name: string, extra: Json = {}): Json => workflow(name, { a1: newVariable('done', true) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']], extra);
const hostSchema = (pattern: string): Json => ({ type: 'object', properties: { host: { type: 'string', pattern } } });

/** Every {parameter, message} in an answer, whatever the surface's error shape. */
function named(res: JsonResponse): Array<{ parameter: string; message: string }> {
  const found: Array<{ parameter: string; message: string }> = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Json;
      if (typeof o['parameter'] === 'string' && typeof o['message'] === 'string') found.push({ parameter: o['parameter'], message: o['message'] });
      else Object.values(o).forEach(walk);
    }
  };
  walk(res.body);
  return found;
}

before(async () => {
  core = await startCore(await openTestStore());
  await createWorkflow(core, simple('plain'));
  const wfId = ((await send('GET', '/automation-studio/automations?equals[name]=plain')).body as { items?: Json[] }).items?.[0]?.['_id'];
  const automation = await send('POST', '/operations-manager/automations', { name: 'schema checks', componentId: wfId });
  assert.equal(automation.status, 200, JSON.stringify(automation.body));
  automationId = (automation.body as { data: Json }).data['_id'] as string;
});
after(() => core.close());

test('a workflow whose inputSchema holds a lookbehind is refused at save, naming the pattern', async () => {
  const res = await send('POST', '/automation-studio/automations', { automation: simple('lookbehind', { inputSchema: hostSchema('(?<=x)y') }) });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.deepEqual(named(res), [{ parameter: 'automation.inputSchema.properties.host.pattern', message: LOOKBEHIND }]);
  assert.match(JSON.stringify(res.body), /automation\.inputSchema\.properties\.host\.pattern lookbehind is not supported/);
});

test('a service form, a transformation and an endpoint trigger with such patterns are refused at save, naming them', async () => {
  const form = await send('POST', '/service_catalog/AddNewService', { service: { name: 'backref', workflow: 'plain' }, form: { name: 'backref form', schema: hostSchema('(a)\\1') } });
  assert.equal(form.status, 400, JSON.stringify(form.body));
  assert.deepEqual(named(form), [{ parameter: 'body.form.schema.properties.host.pattern', message: 'backreferences are not supported (patterns must run in linear time)' }]);

  const transformation = await send('POST', '/transformations', { name: 'lookahead', incoming: [{ $id: 'in', ...hostSchema('a(?=b)') }], outgoing: [{ $id: 'out' }], mapping: '{"out": 1}' });
  assert.equal(transformation.status, 400, JSON.stringify(transformation.body));
  assert.deepEqual(named(transformation), [{ parameter: 'body.incoming[0].properties.host.pattern', message: 'lookahead is not supported (patterns must run in linear time)' }]);

  const trigger = await send('POST', '/operations-manager/triggers', { name: 'lookbehind ep', type: 'endpoint', routeName: 'lookbehind-ep', actionId: automationId, schema: { type: 'object', patternProperties: { '(?<!x)y': { type: 'string' } } } });
  assert.equal(trigger.status, 400, JSON.stringify(trigger.body));
  assert.deepEqual(named(trigger), [{ parameter: 'body.schema.patternProperties["(?<!x)y"]', message: LOOKBEHIND }]);
});

test('reproduction: ^(a+)+$ is saved, and a start with 33 a and ! is refused in milliseconds', async () => {
  await createWorkflow(core, simple('nested quantifier', { inputSchema: hostSchema('^(a+)+$') }));
  const started = performance.now();
  const res = await send('POST', '/operations-manager/jobs/start', { workflow: 'nested quantifier', options: { variables: { host: `${'a'.repeat(33)}!` } } });
  const ms = performance.now() - started;
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.deepEqual(named(res), [{ parameter: 'options.variables.host', message: 'must match pattern "^(a+)+$"' }]);
  assert.ok(ms < 1000, `${Math.round(ms)} ms`);
  const ok = await send('POST', '/operations-manager/jobs/start', { workflow: 'nested quantifier', options: { variables: { host: 'a'.repeat(33) } } });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
});

test('reproduction: uniqueItems over 20,000 small objects is checked in milliseconds', async () => {
  await createWorkflow(core, simple('unique list', { inputSchema: { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } } }));
  const list = Array.from({ length: 20_000 }, (_, i) => ({ id: i, n: 'x' }));
  let started = performance.now();
  const res = await send('POST', '/operations-manager/jobs/start', { workflow: 'unique list', options: { variables: { list } } });
  const unique = performance.now() - started;
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
  list[19_999] = { n: 'x', id: 0 };
  started = performance.now();
  const dup = await send('POST', '/operations-manager/jobs/start', { workflow: 'unique list', options: { variables: { list } } });
  const duplicate = performance.now() - started;
  assert.equal(dup.status, 400);
  assert.deepEqual(named(dup), [{ parameter: 'options.variables.list', message: 'must NOT have duplicate items (items ## 0 and 19999 are identical)' }]);
  // Generous: the whole request (parse, store, answer); Ajv's comparison alone took 7 s before.
  assert.ok(unique < 2000 && duplicate < 2000, `${Math.round(unique)} ms, ${Math.round(duplicate)} ms`);
});

test('a workflow stored before these checks is refused at job start with a 400 naming its pattern', async () => {
  const doc = { ...simple('stored before'), _id: '6f1c2a3b-0000-4000-8000-000000000001', inputSchema: hostSchema('(?<=x)y') };
  await core.store.collection('workflows').insertOne(doc);
  const res = await send('POST', '/operations-manager/jobs/start', { workflow: 'stored before', options: { variables: { host: 'y' } } });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.deepEqual(named(res), [{ parameter: 'inputSchema.properties.host.pattern', message: LOOKBEHIND }]);
  assert.match((res.body as { message: string }).message, /inputSchema of workflow stored before cannot be used/);
});
