/**
 * getJobList/:status: the legacy route took status names the new search does
 * not have (`active` for every job still going, and the spelling
 * `cancelled`), and its options carry a projection and a sort as objects.
 */
import type { CoreAnswer, HatchApi } from '../run.ts';
import type { Scope } from '../template.ts';
import { callOk, isObject, pageOf, projectionOf, qOf, sortOf, wrapper } from './we-common.ts';

/** Legacy status names that are not statuses of the new interface. */
const STATUS_NAMES: Readonly<Record<string, readonly string[]>> = {
  active: ['running', 'paused', 'error'],
  cancelled: ['canceled'],
};

export async function weJobList(args: unknown, _scope: Scope, api: HatchApi): Promise<CoreAnswer> {
  const { status, options } = isObject(args) ? args : {};
  const o = isObject(options) ? options : {};
  const given = String(status ?? '');
  const names = Object.hasOwn(STATUS_NAMES, given) ? STATUS_NAMES[given]! : [given];
  // One status is Rule 3's equals[status]; a list goes into q beside the filter, as a JSON array that needs no comma escaping.
  const conditions = [o['filter'], names.length > 1 ? { status: { $in: names } } : undefined].filter((c) => isObject(c) && Object.keys(c).length > 0);
  const query: Record<string, string> = {
    ...(names.length === 1 ? { 'equals[status]': names[0]! } : {}),
    ...qOf(conditions.length === 0 ? undefined : conditions.length === 1 ? conditions[0] : { $and: conditions }),
    ...pageOf(o['page']),
    ...sortOf(o['sort']),
    ...projectionOf(o['fields']),
  };
  const found = await callOk(api, { method: 'GET', path: '/operations-manager/jobs', query });
  return { status: 200, body: wrapper(found) };
}
