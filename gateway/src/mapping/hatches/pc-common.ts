/**
 * What the platform-core escape hatches share: reading the arguments their
 * entries give them, and calling the authorization API so that a refusal
 * of the core becomes the legacy failure with the core's own message.
 */
import { LegacyFailure } from '../run.ts';
import type { CallCore, CoreCall } from '../run.ts';

export type Obj = Record<string, unknown>;

/** The largest page the core's list routes give (list-query MAX_LIMIT). */
export const PAGE = 1000;

export type Kind = 'accounts' | 'groups' | 'roles';
const KINDS: readonly Kind[] = ['accounts', 'groups', 'roles'];

export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A hatch's arguments come from the mapping table: a malformed one is the table's fault, said so. */
export function argsOf(value: unknown, hatch: string): Obj {
  if (!isObject(value)) throw new LegacyFailure(`${hatch}: the mapping gave no arguments object`);
  return value;
}

export function text(args: Obj, key: string, hatch: string): string {
  const value = args[key];
  if (typeof value !== 'string' || value === '') throw new LegacyFailure(`${hatch}: the argument ${key} must be a non-empty string`);
  return value;
}

export function kindOf(args: Obj, hatch: string, allowed: readonly Kind[] = KINDS): Kind {
  const kind = args['kind'];
  if (!allowed.includes(kind as Kind)) throw new LegacyFailure(`${hatch}: kind must be one of ${allowed.join(', ')}`);
  return kind as Kind;
}

export function pathOf(kind: Kind, id?: string): string {
  return id === undefined ? `/authorization/${kind}` : `/authorization/${kind}/${encodeURIComponent(id)}`;
}

function messageOf(body: unknown): string {
  if (typeof body === 'string') return body;
  if (isObject(body) && typeof body['message'] === 'string') return body['message'];
  return JSON.stringify(body);
}

/** Calls the core and answers its body; any status outside 2xx (or `accept`) fails the legacy call. */
export async function send(call: CallCore, request: Partial<CoreCall> & Pick<CoreCall, 'method' | 'path'>, accept: readonly number[] = []): Promise<{ status: number; body: unknown }> {
  const answer = await call({ query: {}, body: undefined, ...request });
  if ((answer.status < 200 || answer.status > 299) && !accept.includes(answer.status)) throw new LegacyFailure(messageOf(answer.body), answer.status);
  return answer;
}

/** The `data` of the authorization module's write answers (`{status, message, data}`). */
export function dataOf(body: unknown): unknown {
  return isObject(body) && 'data' in body ? body['data'] : body;
}
