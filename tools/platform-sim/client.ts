/**
 * A small client for tests of the stand-in: node:https with the stand-in's CA
 * (fetch cannot be given one without a dispatcher), or node:http for its
 * plain port. It sends exactly the headers given.
 */
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface SimAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body read as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface SimCall {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  /** Sent as JSON with `content-type: application/json` unless a content-type is given. */
  readonly body?: unknown;
  /** The CA to trust for https URLs. */
  readonly ca?: string;
}

export function simCall(url: string, call: SimCall = {}): Promise<SimAnswer> {
  const target = new URL(url);
  const payload = call.body === undefined ? undefined : typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
  const headers: Record<string, string> = { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...call.headers };
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  const options = { method: call.method ?? 'GET', host: target.hostname.replace(/^\[|\]$/g, ''), port: target.port, path: `${target.pathname}${target.search}`, headers, ...(call.ca ? { ca: call.ca } : {}) };
  return new Promise((resolve, reject) => {
    const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
