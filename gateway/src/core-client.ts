/**
 * Calls from the gateway to the core for rewritten legacy operations, over
 * one keep-alive pool, with the legacy caller's own credentials, so the core
 * decides what the caller may do exactly as for a direct call. On node:http:
 * a rewritten call is only JSON in and out, and got's per-request machinery
 * cost more than the rest of the rewrite (BENCHMARKS.md).
 */
import { Agent, request } from 'node:http';
import type { OutgoingHttpHeaders } from 'node:http';
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

/**
 * Encodes a query value keeping its commas: in `in[...]` lists they separate
 * options, while a comma inside an option arrives already written as `%2C`
 * (the `|join` filter), which must reach the core as `%2C` too.
 */
export function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/%2C/g, ',').replace(/%252C/g, '%2C');
}

export function createCoreClient(baseUrl: string, timeoutMs: number): CoreClient {
  const target = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  return {
    forCaller(credentials) {
      return (call): Promise<CoreAnswer> =>
        new Promise((resolve, reject) => {
          const params: Record<string, string> = { ...call.query };
          if (credentials.token && !credentials.authorization) params['token'] = credentials.token;
          const qs = Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${encodeValue(v)}`).join('&');
          const payload = call.body === undefined || call.method === 'GET' ? null : Buffer.from(JSON.stringify(call.body));
          const headers: OutgoingHttpHeaders = { accept: 'application/json' };
          if (credentials.authorization) headers['authorization'] = credentials.authorization;
          if (credentials.cookie) headers['cookie'] = credentials.cookie;
          if (payload) {
            headers['content-type'] = 'application/json';
            headers['content-length'] = payload.length;
          }
          const req = request({ host: target.hostname, port: target.port, method: call.method, path: `${call.path}${qs ? `?${qs}` : ''}`, headers, agent }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              let body: unknown = text;
              try {
                body = text.length > 0 ? JSON.parse(text) : null;
              } catch {
                // A non-JSON answer stays text.
              }
              resolve({ status: res.statusCode ?? 502, body });
            });
            res.on('error', () => reject(new LegacyFailure('The core service closed the connection')));
          });
          req.setTimeout(timeoutMs, () => req.destroy(new LegacyFailure('The core service did not answer in time')));
          req.on('error', (err) => reject(err instanceof LegacyFailure ? err : new LegacyFailure('The core service is not reachable; try again shortly')));
          req.end(payload ?? undefined);
        });
    },
    close: () => agent.destroy(),
  };
}
