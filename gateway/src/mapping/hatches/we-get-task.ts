/**
 * getTask: the first task matching a query, with only the fields the legacy
 * `filter` names (Rule 3: `include` from the filter's keys, which a template
 * cannot list).
 */
import type { CoreAnswer, HatchApi } from '../run.ts';
import type { Scope } from '../template.ts';
import { callOk, isObject, projectionOf, qOf } from './we-common.ts';

export async function weGetTask(args: unknown, _scope: Scope, api: HatchApi): Promise<CoreAnswer> {
  const { query, filter } = isObject(args) ? args : {};
  const found = await callOk(api, { method: 'GET', path: '/operations-manager/tasks', query: { ...qOf(query), limit: '1', ...projectionOf(filter) } });
  const first = Array.isArray(found.data) ? found.data[0] : undefined;
  return { status: 200, body: first ?? null };
}
