/**
 * Shared by the automation-catalog tests: requests against a running core
 * and the smallest workflow the engine runs to completion.
 */
import assert from 'node:assert/strict';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';
import { createWorkflow, newVariable, workflow } from '../../helpers/engine.ts';

export type Json = Record<string, unknown>;
export const BASE = '/automation_catalog/automations';

export function send(core: RunningCore, method: string, path: string, body?: unknown, token?: string | null): Promise<JsonResponse> {
  return core.request(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    ...(token === undefined ? {} : { token }),
  });
}

export async function createAutomation(core: RunningCore, name: string, description = `${name} (test)`): Promise<Json> {
  const res = await send(core, 'POST', BASE, { name, description });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Json;
}

export async function update(core: RunningCore, id: string, options: Json): Promise<Json> {
  const res = await send(core, 'PUT', `${BASE}/${id}`, { options });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Json;
}

/** A workflow of one quick task; answers its id. */
export async function quickWorkflow(core: RunningCore, name: string): Promise<string> {
  await createWorkflow(core, workflow(name, { a1: newVariable('done', true) }, [['workflow_start', 'a1'], ['a1', 'workflow_end']]));
  const res = await core.request(`/automation-studio/automations/${encodeURIComponent(name)}`);
  return (res.body as { _id: string })._id;
}

/** Jobs of a workflow, as the operations manager's search finds them. */
export async function jobsOf(core: RunningCore, workflowName: string): Promise<Array<{ _id: string; variables: Json; created_by: string }>> {
  const res = await core.request(`/operations-manager/jobs?equals[name]=${encodeURIComponent(workflowName)}&include=_id,variables,created_by`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { data: Array<{ _id: string; variables: Json; created_by: string }> }).data;
}
