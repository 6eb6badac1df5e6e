/**
 * The one call the stand-in makes: the request, as translated, to our core
 * over plain HTTP on loopback, answered in full (answers are rewritten whole).
 */
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

export interface Upstream {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Headers that belong to one connection, or that the stand-in recomputes. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'content-length', 'host']);

export function passableHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP.has(name)) out[name] = value;
  }
  return out;
}

export function callCore(coreUrl: URL, method: string, path: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Upstream> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: coreUrl.hostname, port: coreUrl.port, method, path, headers: { ...passableHeaders(headers), ...(body.length > 0 ? { 'content-length': String(body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body.length > 0 ? body : undefined);
  });
}
