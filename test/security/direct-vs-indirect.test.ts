/**
 * Allowed directly ⇔ allowed indirectly. For every built-in task that acts
 * outside the store (read from the task registry by its declared reach), what
 * an account may do with the same call over HTTP is what it may do through a
 * workflow it starts, a manual trigger it runs, and a service it orders. A
 * path the account may not enter at all (no role for the start, the trigger
 * or the order route) is that route's own refusal and proves nothing either
 * way, so it is left out of the comparison.
 *
 * A new task that reaches out must declare it (the type requires a reach on
 * every handler, and this test reads it), and must be added to CASES below:
 * the test fails until it is.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { builtInTasks } from '../../core/src/engine/tasks/index.ts';
import * as gatewayTasks from '../../core/src/ag-manager/tasks.ts';
import type { JsonResponse } from '../helpers/core.ts';
import { BASKET, fruitPicker } from '../core/transformations/helpers.ts';
import { account, chain, errorText, NSO, readCe0, relayTask, saveWorkflow, send, startRelayFixture, storedJob, YANG_JSON } from './authority-fixture.ts';
import type { Account, Json, RelayFixture } from './authority-fixture.ts';

type Path = 'workflow' | 'trigger' | 'order';
type Verdict = 'allowed' | 'refused';

interface Case {
  /** The task as a workflow holds it. */
  readonly task: Json;
  /** The same call over HTTP. */
  direct(token: string): Promise<JsonResponse>;
}

const CE0 = '/restconf/data/tailf-ncs:devices/device=ce0/config';
const loopback = { config: { 'tailf-ned-cisco-ios:interface': { Loopback: [{ name: '26', ip: { address: { primary: { address: '192.0.2.26', mask: '255.255.255.255' } } } }] } } };
const relayPath = (kind: string) => `/orchestrator_manager/${kind}/${encodeURIComponent(NSO)}`;
const queryBody = { params: { path: CE0, accept: YANG_JSON } };
const actionBody = { params: { path: CE0, accept: YANG_JSON, method: 'PATCH' }, body: loopback };

let f: RelayFixture;
let transformationId: string;
let users: Account[];
const CASES: Record<string, Case> = {};
/** Per case: the manual trigger and the service that start its workflow. */
const entries = new Map<string, { trigger: string; service: string }>();

function cases(): Record<string, Case> {
  const relay = (kind: 'restAction' | 'restQuery', app: string): Case => ({
    task: kind === 'restQuery' ? readCe0(app) : relayTask('restAction', { adapterId: NSO, ...actionBody }, app),
    direct: (token) => send(f.core, 'POST', relayPath(kind), kind === 'restQuery' ? queryBody : actionBody, token),
  });
  return {
    'NSOManager.restQuery': relay('restQuery', 'NSOManager'),
    'NSOManager.restAction': relay('restAction', 'NSOManager'),
    'OrchestratorManager.restQuery': relay('restQuery', 'OrchestratorManager'),
    'OrchestratorManager.restAction': relay('restAction', 'OrchestratorManager'),
    'WorkFlowEngine.transformation': {
      task: { name: 'transformation', app: 'WorkFlowEngine', type: 'automatic', variables: { incoming: { tr_id: transformationId, variableMap: { basket: BASKET }, options: {} }, outgoing: { output: '$var.job.output' } } },
      direct: (token) => send(f.core, 'POST', `/transformations/${transformationId}`, { incoming: { basket: BASKET } }, token),
    },
    'WorkFlowEngine.childJob': {
      task: { name: 'childJob', app: 'WorkFlowEngine', type: 'automatic', variables: { incoming: { task: '', workflow: 'plain child', variables: {}, data_array: '', transformation: '', loopType: '' }, outgoing: { job_details: null } } },
      direct: (token) => send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: 'plain child' }, token),
    },
  };
}

const dataId = (res: JsonResponse): string => String(((res.body as Json)['data'] as Json | undefined)?.['_id'] ?? (res.body as Json)['_id']);

before(async () => {
  f = await startRelayFixture();
  const created = await send(f.core, 'POST', '/transformations/', fruitPicker('authority fruit picker'));
  assert.equal(created.status, 200, JSON.stringify(created.body));
  transformationId = String((created.body as Json)['_id']);
  await saveWorkflow(f.core, chain('plain child', { a1: { name: 'newVariable', app: 'WorkFlowEngine', type: 'operation', variables: { incoming: { name: 'ran', value: true }, outgoing: { value: null } } } }));
  Object.assign(CASES, cases());
  for (const [key, c] of Object.entries(CASES)) {
    await saveWorkflow(f.core, chain(`via ${key}`, { b2: c.task }));
    const automation = await send(f.core, 'POST', '/operations-manager/automations', { name: `automation ${key}`, componentName: `via ${key}` });
    const trigger = await send(f.core, 'POST', '/operations-manager/triggers', { type: 'manual', name: `run ${key}`, actionId: dataId(automation) });
    const service = await send(f.core, 'POST', '/service_catalog/AddNewService', { service: { name: `service ${key}`, workflow: `via ${key}` }, form: { name: `form ${key}`, schema: { type: 'object' } } });
    for (const res of [automation, trigger, service]) assert.equal(res.status, 200, JSON.stringify(res.body));
    entries.set(key, { trigger: dataId(trigger), service: dataId(service) });
  }
  // Each holds a different mix: the start and trigger routes need an operations-manager write role, orders a catalog one.
  users = [
    await account(f.core, 'ops-only', [['OperationsManager', 'operations'], ['ServiceCatalog', 'operations']]),
    await account(f.core, 'wide', [['OperationsManager', 'operations'], ['ServiceCatalog', 'operations'], ['OrchestratorManager', 'admin'], ['Jst', 'operations']]),
    await account(f.core, 'catalog-only', [['ServiceCatalog', 'operations']]),
    await account(f.core, 'transformer', [['Jst', 'operations'], ['ServiceCatalog', 'operations']]),
  ];
});
after(() => f.close());

/** Refused with 403 (no role), allowed with 2xx; anything else is a broken case, not a verdict. */
function verdictOf(res: JsonResponse, what: string): Verdict {
  if (res.status === 403) return 'refused';
  assert.ok(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return 'allowed';
}

/** Starts the case's workflow by a path; null when the path's own route refused the account. */
async function indirect(key: string, path: Path, user: Account): Promise<Verdict | null> {
  const entry = entries.get(key)!;
  const res =
    path === 'workflow' ? await send(f.core, 'POST', '/operations-manager/jobs/start', { workflow: `via ${key}` }, user.token)
    : path === 'trigger' ? await send(f.core, 'POST', `/operations-manager/triggers/manual/${entry.trigger}/run`, { formData: {} }, user.token)
    : await send(f.core, 'POST', '/service_catalog/invokeServiceOrder', { serviceId: entry.service, formData: {} }, user.token);
  if (res.status === 403) return null;
  assert.equal(res.status, 200, `${path} ${key} for ${user.username}: ${JSON.stringify(res.body)}`);
  const job = await storedJob(f.core, dataId(res));
  if (job.status === 'complete') return 'allowed';
  assert.equal(job.status, 'error', `${path} ${key} for ${user.username}`);
  assert.match(errorText(job), /holds no role that allows/, `${path} ${key} for ${user.username} failed for another reason`);
  return 'refused';
}

test('every built-in task declares its reach, and what an outside-reaching one needs is a route of the core', () => {
  for (const task of builtInTasks) {
    assert.ok(task.reach && typeof task.reach.outside === 'boolean', `${task.app}.${task.name} declares no reach`);
    if (task.reach.outside) {
      assert.ok(!task.pure, `${task.app}.${task.name} reaches outside, so it cannot be pure`);
      assert.ok(f.core.core.authority.rolesFor(task.reach.needs).length > 0);
    }
  }
  // Gateway actions are discovered, not built in: their one reach is declared beside their handler.
  const gateway = gatewayTasks.AG_ACTION_REACH;
  assert.ok(gateway?.outside, 'gateway action tasks declare that they reach outside');
  assert.deepEqual(f.core.core.authority.rolesFor(gateway.needs), ['AGManager.admin']);
  const outside = builtInTasks.filter((t) => t.reach.outside).map((t) => `${t.app}.${t.name}`).sort();
  assert.deepEqual(Object.keys(CASES).sort(), outside, 'every outside-reaching task has a case here');
});

test('for every outside-reaching task, allowed over HTTP exactly when allowed through a workflow, a trigger and a service order', async () => {
  const seen = new Map<string, Set<Verdict>>();
  for (const [key, c] of Object.entries(CASES)) {
    for (const user of users) {
      const direct = verdictOf(await c.direct(user.token), `${key} directly for ${user.username}`);
      for (const path of ['workflow', 'trigger', 'order'] as const) {
        const through = await indirect(key, path, user);
        if (through === null) continue;
        assert.equal(through, direct, `${user.username}: ${key} is ${direct} over HTTP but ${through} through a ${path}`);
        seen.set(key, (seen.get(key) ?? new Set()).add(through));
      }
    }
  }
  // Not vacuous: each task was both allowed and refused through some path.
  for (const key of Object.keys(CASES)) assert.deepEqual([...(seen.get(key) ?? [])].sort(), ['allowed', 'refused'], key);
});
