/**
 * HTTP calls for the authorization tests. Every answer is checked for
 * leaked secrets, whatever the test is about.
 */
import assert from 'node:assert/strict';
import type { JsonResponse, RunningCore } from '../../helpers/core.ts';

export type Doc = Record<string, unknown>;

/** The `{status, message, data}` answer of a write. */
export interface Written {
  status: string;
  message: string;
  data: Doc;
}

export function client(core: () => RunningCore): {
  call(method: string, path: string, body?: unknown, token?: string | null): Promise<JsonResponse>;
  written(method: string, path: string, body?: unknown): Promise<Written>;
} {
  async function call(method: string, path: string, body?: unknown, token?: string | null): Promise<JsonResponse> {
    const init = body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } };
    const res = await core().request(path, { method, ...init, ...(token === undefined ? {} : { token }) });
    assert.doesNotMatch(JSON.stringify(res.body), /passwordHash|secretHash|scrypt\$/, `${method} ${path} leaked a secret`);
    return res;
  }
  async function written(method: string, path: string, body?: unknown): Promise<Written> {
    const res = await call(method, path, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Written;
  }
  return { call, written };
}
