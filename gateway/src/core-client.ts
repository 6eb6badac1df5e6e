/**
 * Calls from the gateway to the core for rewritten legacy operations, over
 * one keep-alive pool, with the legacy caller's own credentials, so the core
 * decides what the caller may do exactly as for a direct call.
 */
import { Agent } from 'node:http';
import got from 'got';
import type { CallCore, CoreAnswer } from './mapping/run.ts';
import { LegacyFailure } from './mapping/run.ts';

export interface Credentials {
  readonly authorization?: string;
  readonly cookie?: string;
  /** The `token` query parameter of the legacy request. */
  readonly token?: string;
}

export interface CoreClient {
  forCaller(credentials: Credentials): CallCore;
  close(): void;
}

export function createCoreClient(baseUrl: string, timeoutMs: number): CoreClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const client = got.extend({ prefixUrl: baseUrl, agent: { http: agent }, throwHttpErrors: false, retry: { limit: 0 }, timeout: { request: timeoutMs }, responseType: 'text' });
  return {
    forCaller(credentials) {
      const headers: Record<string, string> = {};
      if (credentials.authorization) headers['authorization'] = credentials.authorization;
      if (credentials.cookie) headers['cookie'] = credentials.cookie;
      return async (call): Promise<CoreAnswer> => {
        const searchParams = new URLSearchParams(call.query);
        if (credentials.token && !credentials.authorization) searchParams.set('token', credentials.token);
        try {
          const res = await client(call.path.replace(/^\//, ''), {
            method: call.method,
            headers,
            searchParams,
            ...(call.body === undefined || call.method === 'GET' ? {} : { json: call.body }),
          });
          let body: unknown = res.body;
          try {
            body = res.body.length > 0 ? JSON.parse(res.body) : null;
          } catch {
            // A non-JSON answer stays text.
          }
          return { status: res.statusCode, body };
        } catch (err) {
          const code = (err as { code?: string }).code;
          throw new LegacyFailure(code === 'ETIMEDOUT' ? 'The core service did not answer in time' : 'The core service is not reachable; try again shortly');
        }
      };
    },
    close: () => agent.destroy(),
  };
}
