/**
 * The engine bench's HTTP client: JSON over `node:http` on kept-alive
 * connections. The bench shares the machine's two cores with the core it
 * measures; `fetch` (undici) spent about 1.3 ms of CPU per job started and
 * polled, more than the core's own share at the rate the goal asks, where
 * this client spends a fraction of that.
 */
import { Agent, request } from 'node:http';

export interface JsonAnswer {
  readonly status: number;
  readonly body: unknown;
}

export type JsonClient = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<JsonAnswer>;

export function jsonClient(baseUrl: string, token: string, connections: number): JsonClient {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  return (method, path, body) =>
    new Promise((done, fail) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
      if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      const req = request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done({ status: res.statusCode ?? 0, body: text === '' ? null : (JSON.parse(text) as unknown) }));
        res.on('error', fail);
      });
      req.on('error', fail);
      req.end(payload);
    });
}
