/**
 * HTTP calls from a chosen loopback address: Linux routes all of 127/8 to
 * the loopback interface, so a client socket bound to 127.0.0.5 is a second
 * client on the same machine, as an attacker and a victim behind one gateway
 * are. fetch cannot choose its source address; node:http can.
 */
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Sent {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body as JSON, or the text when it is not JSON. */
  readonly body: unknown;
}

export interface SendInit {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** The client's own address (127.0.0.x); the system's choice when absent. */
  readonly from?: string;
}

export function send(url: string, init: SendInit = {}): Promise<Sent> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const make = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = make(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? 'GET',
        headers: { ...init.headers, ...(init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}) },
        ...(init.from ? { localAddress: init.from } : {}),
        // The test's own self-signed certificate.
        ...(secure ? { rejectUnauthorized: false } : {}),
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // Not JSON: the text is the body.
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/** The `token` cookie a Set-Cookie header list sets, with its attributes, or undefined. */
export function tokenCookie(headers: IncomingHttpHeaders): string | undefined {
  return (headers['set-cookie'] ?? []).find((c) => c.startsWith('token='));
}
