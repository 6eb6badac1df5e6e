/**
 * What the background-authority tests share: a real core on loopback in front
 * of the orchestrator stand-in (the relay tests' fixture), accounts holding
 * chosen built-in roles, workflows saved over HTTP, and jobs read back from
 * the store once the engine is idle (so a job hidden from its starter can
 * still be checked).
 */
import assert from 'node:assert/strict';
import type { JsonResponse, RunningCore } from '../helpers/core.ts';
import { makeGroup, makeUser, role } from '../helpers/users.ts';
import type { TestUser } from '../helpers/users.ts';
import { NSO, YANG_JSON } from '../core/relay/fixture.ts';

export { startRelayFixture, NSO, YANG_JSON } from '../core/relay/fixture.ts';
export type { RelayFixture } from '../core/relay/fixture.ts';
export { makeGroup };

export type Json = Record<string, unknown>;
export const json = { 'content-type': 'application/json' };

export const CE0_CONFIG = '/restconf/data/tailf-ncs:devices/device=ce0/config';
export const CE1 = '/restconf/data/tailf-ncs:devices/device=ce1';

export interface Account extends TestUser {
  readonly username: string;
}

/** An account holding these built-in roles (`['OperationsManager', 'operations']`, ...), with a session token. */
export async function account(core: RunningCore, username: string, roles: ReadonlyArray<readonly [string, string]>, groups: string[] = []): Promise<Account> {
  const user = await makeUser(core, username, { roles: roles.map(([p, r]) => role(p, r)), groups });
  return { ...user, username };
}

/** Takes every role away from an account, as an administrator's PATCH would, and drops cached callers. */
export async function stripRoles(core: RunningCore, id: string, change: Json = { assignedRoles: [] }): Promise<void> {
  const doc = (await core.store.collection('accounts').findById(id))!;
  await core.store.collection('accounts').replaceOne({ ...doc, ...change });
  core.core.auth.invalidate();
}

export function send(core: RunningCore, method: string, path: string, body?: unknown, token?: string): Promise<JsonResponse> {
  return core.request(path, { method, ...(body === undefined ? {} : { headers: json, body: JSON.stringify(body) }), ...(token ? { token } : {}) });
}

/** A workflow of these tasks run one after another, from the engine tests' compact form. */
export function chain(name: string, tasks: Record<string, Json>, extra: Json = {}): Json {
  const keys = Object.keys(tasks);
  const all: Record<string, Json> = { workflow_start: { name: 'workflow_start', groups: [] }, workflow_end: { name: 'workflow_end', groups: [] }, ...tasks };
  const transitions: Record<string, Record<string, { type: string; state: string }>> = {};
  for (const key of Object.keys(all)) transitions[key] = {};
  const order = ['workflow_start', ...keys, 'workflow_end'];
  for (let i = 0; i + 1 < order.length; i += 1) transitions[order[i]!]![order[i + 1]!] = { type: 'standard', state: 'success' };
  return { name, description: `${name} (test)`, tasks: all, transitions, ...extra };
}

export async function saveWorkflow(core: RunningCore, wf: Json, token?: string): Promise<void> {
  const res = await send(core, 'POST', '/automation-studio/automations', { automation: wf }, token);
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

export const relayTask = (name: 'restAction' | 'restQuery', incoming: Json, app = 'NSOManager'): Json => ({ name, app, type: 'automatic', variables: { incoming, outgoing: { result: '$var.job.result' } } });
export const readCe0 = (app?: string): Json => relayTask('restQuery', { adapterId: NSO, params: { path: CE0_CONFIG, accept: YANG_JSON } }, app);
export const deleteCe1 = (app?: string): Json => relayTask('restAction', { adapterId: NSO, params: { path: CE1, accept: YANG_JSON, method: 'DELETE' }, body: {} }, app);
export const manualTask = (): Json => ({ name: 'ViewData', app: 'WorkFlowEngine', type: 'manual', variables: { incoming: {}, outgoing: {} } });

/** The job's stored document once the engine has nothing in flight, internal fields and all. */
export async function storedJob(core: RunningCore, id: string): Promise<Json & { status: string; error: Array<{ task: string; message: unknown }> }> {
  await core.core.engine.idle();
  const doc = await core.store.collection('jobs').findById(id);
  assert.ok(doc, `job ${id} is stored`);
  return doc as Json & { status: string; error: Array<{ task: string; message: unknown }> };
}

export const errorText = (job: { error: Array<{ message: unknown }> }): string => job.error.map((e) => String(e.message)).join(' | ');

/** The `data._id` of an operations-manager answer that started a job. */
export function startedId(res: JsonResponse): string {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body as { data?: { _id?: string }; _id?: string };
  const id = body.data?._id ?? body._id;
  assert.ok(typeof id === 'string', JSON.stringify(res.body));
  return id;
}
