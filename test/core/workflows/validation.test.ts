/**
 * What a workflow must be to be saved. A real-shaped workflow (as Automation
 * Studio writes it) is accepted; each rule is then broken on a copy of it and
 * refused with 400 VALIDATION_FAILED naming exactly the paths concerned.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestStore } from '../../helpers/stores.ts';
import { validateWorkflow } from '../../../core/src/workflows/validate.ts';
import { startCore } from '../../helpers/core.ts';
import type { RunningCore } from '../../helpers/core.ts';

type Json = Record<string, unknown>;
const ok = { type: 'standard', state: 'success' };

/** The object holding the last key of a dotted path, and that key. */
function slot(doc: Json, path: string): [Json, string] {
  const keys = path.split('.');
  const last = keys.pop()!;
  return [keys.reduce((node, k) => node[k] as Json, doc), last];
}
const set = (doc: Json, path: string, value: unknown): void => {
  const [parent, key] = slot(doc, path);
  parent[key] = value;
};
const unset = (doc: Json, path: string): void => {
  const [parent, key] = slot(doc, path);
  delete parent[key];
};

function task(name: string, type: string, incoming: Json, outgoing: Json, x: number): Json {
  return {
    name, canvasName: name, summary: `${name} step`, description: `${name} step`, location: 'Application', locationType: null,
    app: 'WorkFlowEngine', type, displayName: 'WorkFlowEngine', variables: { incoming, outgoing, error: '', decorators: [] },
    groups: [], actor: 'Pronghorn', scheduled: false, nodeLocation: { x, y: 200 },
  };
}

/** workflow_start → a1b2 (newVariable) → c3d4 (manual) → workflow_end, and an error way out of a1b2. */
function real(name = 'Real Shaped'): Json {
  return {
    name, description: 'Record a ticket, then ask a person to confirm it', type: 'automation', canvasVersion: 3, encodingVersion: 1, font_size: 12,
    tasks: {
      workflow_start: { name: 'workflow_start', groups: [], nodeLocation: { x: 40, y: 200 } },
      a1b2: task('newVariable', 'operation', { name: 'ticket', value: '$var.job.ticket' }, { value: '$var.job.ticketCopy' }, 240),
      c3d4: task('ViewData', 'manual', { header: 'Confirm', body: '$var.a1b2.value', data: { nested: '$var.ffff.not_a_reference' } }, { return_value: null }, 440),
      workflow_end: { name: 'workflow_end', groups: [], nodeLocation: { x: 640, y: 200 } },
    },
    transitions: {
      workflow_start: { a1b2: ok },
      a1b2: { c3d4: ok, workflow_end: { type: 'standard', state: 'error' } },
      c3d4: { workflow_end: ok },
      workflow_end: {},
    },
    groups: [],
    inputSchema: { type: 'object', properties: { ticket: { type: 'string', title: 'ticket' } }, required: ['ticket'] },
    outputSchema: { type: 'object', properties: { ticketCopy: { type: 'string', title: 'ticketCopy', 'x-editor': { hidden: false } } } },
  };
}

let core: RunningCore;
before(async () => {
  core = await startCore((await openTestStore()));
});
after(() => core.close());

let serial = 0;
/** Saves `doc` under a fresh name (unless it breaks the name on purpose) and returns the refused paths. */
async function refusedPaths(change: (doc: Json) => void): Promise<string[]> {
  const doc = real(`Broken ${++serial}`);
  change(doc);
  const res = await core.request('/automation-studio/automations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ automation: doc }) });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  const body = res.body as { code: string; details: Array<{ parameter: string; message: string }> };
  assert.equal(body.code, 'VALIDATION_FAILED');
  return body.details.map((d) => d.parameter).sort();
}

test('a real-shaped workflow is accepted as it is, nested $var-like values and unknown schema keywords included', async () => {
  assert.deepEqual(validateWorkflow(real()), []);
  const res = await core.request('/automation-studio/automations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ automation: real() }) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { _id, created, created_by, last_updated, last_updated_by, ...saved } = (res.body as { created: Json }).created;
  assert.deepEqual(saved, real());
  assert.ok(_id && created && created_by && last_updated && last_updated_by);
});

test('workflow_start and workflow_end are required tasks', async () => {
  assert.deepEqual(await refusedPaths((d) => unset(d, 'tasks.workflow_start')), ['automation.tasks.workflow_start', 'automation.transitions.workflow_start']);
  assert.deepEqual(await refusedPaths((d) => unset(d, 'tasks.workflow_end')), [
    'automation.tasks.workflow_end', 'automation.transitions.a1b2.workflow_end', 'automation.transitions.c3d4.workflow_end', 'automation.transitions.workflow_end',
  ]);
  assert.deepEqual(await refusedPaths((d) => unset(d, 'tasks')), ['automation.tasks']);
});

test('task ids other than the two special ones are 1 to 4 lowercase hex characters', async () => {
  for (const key of ['A1B2', 'a1b2c', 'apush', '']) {
    const paths = await refusedPaths((d) => {
      (d['tasks'] as Json)[key] = task('delay', 'automatic', { time: 1 }, {}, 0);
      set(d, 'transitions.a1b2', { [key]: ok, workflow_end: { type: 'standard', state: 'error' } });
      (d['transitions'] as Json)[key] = { c3d4: ok };
    });
    assert.deepEqual(paths, [`automation.tasks.${key}`], key);
  }
});

test('transitions must join tasks of the workflow, with a known state and type', async () => {
  assert.deepEqual(await refusedPaths((d) => set(d, 'transitions.a1b2.beef', ok)), ['automation.transitions.a1b2.beef']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'transitions.beef', { c3d4: ok })), ['automation.transitions.beef']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'transitions.a1b2.c3d4', { type: 'standard', state: 'done' })), ['automation.transitions.a1b2.c3d4.state']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'transitions.a1b2.c3d4', { type: 'backwards', state: 'success' })), ['automation.transitions.a1b2.c3d4.type']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'transitions.a1b2.c3d4', 'success')), ['automation.transitions.a1b2.c3d4']);
  assert.deepEqual(await refusedPaths((d) => unset(d, 'transitions')), ['automation.transitions']);
});

test('every task is reachable from workflow_start', async () => {
  assert.deepEqual(await refusedPaths((d) => {
    set(d, 'tasks.e5f6', task('delay', 'automatic', { time: 1 }, {}, 300));
    set(d, 'transitions.e5f6', { workflow_end: ok });
  }), ['automation.tasks.e5f6']);
});

test('every task has a way to workflow_end', async () => {
  const paths = await refusedPaths((d) => set(d, 'transitions.c3d4', {}));
  assert.deepEqual(paths, ['automation.tasks.c3d4']);
  const doc = real();
  set(doc, 'transitions.c3d4', {});
  assert.match(validateWorkflow(doc)[0]!.message, /no way to workflow_end/);
  // A cycle with no exit is just as stuck as a dead end.
  assert.deepEqual(await refusedPaths((d) => {
    set(d, 'tasks.e5f6', task('delay', 'automatic', { time: 1 }, {}, 300));
    set(d, 'transitions.c3d4', { e5f6: ok });
    set(d, 'transitions.e5f6', { c3d4: { type: 'revert', state: 'success' } });
  }), ['automation.tasks.c3d4', 'automation.tasks.e5f6']);
});

test('a forEach loop body may end without transitions: the engine returns to the forEach', () => {
  const doc = real();
  set(doc, 'tasks.f1', task('forEach', 'operation', { data_array: '$var.job.items' }, { current_item: '$var.job.item' }, 300));
  set(doc, 'tasks.f2', task('delay', 'automatic', { time: '$var.f1.current_item' }, {}, 300));
  set(doc, 'transitions.c3d4', { f1: ok });
  set(doc, 'transitions.f1', { f2: { type: 'standard', state: 'loop' }, workflow_end: ok });
  assert.deepEqual(validateWorkflow(doc), []);
  set(doc, 'transitions.f1', { f2: ok, workflow_end: ok });
  assert.deepEqual(validateWorkflow(doc).map((d) => d.parameter), ['automation.tasks.f2'], 'without the loop state the dead end stays a dead end');
});

test('incoming $var references read job variables or tasks of this workflow', async () => {
  assert.deepEqual(await refusedPaths((d) => set(d, 'tasks.c3d4.variables.incoming.body', '$var.ffff.value')), ['automation.tasks.c3d4.variables.incoming.body']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'tasks.c3d4.variables.incoming.body', '$var.apush.value')), ['automation.tasks.c3d4.variables.incoming.body']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'tasks.c3d4.variables.incoming.body', '$var.job')), ['automation.tasks.c3d4.variables.incoming.body']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'tasks.c3d4.variables', 'none')), ['automation.tasks.c3d4.variables']);
});

test('outgoing $var values may only write job variables', async () => {
  assert.deepEqual(await refusedPaths((d) => set(d, 'tasks.a1b2.variables.outgoing.value', '$var.c3d4.value')), ['automation.tasks.a1b2.variables.outgoing.value']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'tasks.a1b2.variables.outgoing', ['$var.job.x'])), ['automation.tasks.a1b2.variables.outgoing']);
});

test('inputSchema and outputSchema must be valid JSON Schemas', async () => {
  assert.deepEqual(await refusedPaths((d) => set(d, 'inputSchema', { type: 'nope' })), ['automation.inputSchema']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'outputSchema', { type: 'object', properties: { a: { type: 'string', pattern: '(' } } })), ['automation.outputSchema.properties.a.pattern']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'outputSchema', 'object')), ['automation.outputSchema']);
});

test('a name is required: a non-empty string of at most 256 characters', async () => {
  assert.deepEqual(await refusedPaths((d) => unset(d, 'name')), ['automation.name']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'name', '  ')), ['automation.name']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'name', 'n'.repeat(257))), ['automation.name']);
  assert.deepEqual(await refusedPaths((d) => set(d, 'name', 7)), ['automation.name']);
  assert.deepEqual(validateWorkflow({ ...real(), name: 'n'.repeat(256) }), []);
});

test('prototype keys are refused anywhere in the document', async () => {
  assert.deepEqual(await refusedPaths((d) => set(d, 'tasks.a1b2.variables.incoming.constructor', { prototype: { polluted: true } })), ['automation.tasks.a1b2.variables.incoming.constructor']);
  const proto = JSON.parse('{"__proto__": {"polluted": true}}') as Json;
  assert.deepEqual(validateWorkflow({ ...real(), inputSchema: proto }).map((d) => d.parameter), ['automation.inputSchema.__proto__']);
  const raw = JSON.stringify({ automation: real('Proto') }).replace('"groups":[]', '"__proto__":{"polluted":true},"groups":[]');
  const res = await core.request('/automation-studio/automations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
  assert.equal(res.status, 400);
  assert.equal(({} as Json)['polluted'], undefined);
});

test('every problem is listed at once, and nesting deeper than the store allows is refused', async () => {
  assert.deepEqual(await refusedPaths((d) => {
    set(d, 'name', '');
    set(d, 'transitions.a1b2.c3d4', { type: 'standard', state: 'done' });
    set(d, 'inputSchema', { type: 'nope' });
  }), ['automation.inputSchema', 'automation.name', 'automation.transitions.a1b2.c3d4.state']);
  const top: Json = {};
  let deep = top;
  for (let i = 0; i < 150; i++) {
    const inner: Json = {};
    deep['x'] = inner;
    deep = inner;
  }
  const [tooDeep, ...rest] = await refusedPaths((d) => set(d, 'tasks.a1b2.variables.incoming.value', top));
  assert.match(tooDeep!, /^automation\.tasks\.a1b2\.variables\.incoming\.value(\.x)+$/);
  assert.deepEqual(rest, [], 'reported once');
  assert.deepEqual(validateWorkflow(null), [{ parameter: 'automation', message: 'must be a workflow object' }]);
});
