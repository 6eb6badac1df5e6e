/**
 * A bare HTTP client for the simulator's tests. It uses node:http rather
 * than fetch because fetch always sends a wildcard Accept, and the tests need to
 * send no Accept at all to see the XML default. No connection is reused, so
 * a fault that closes sockets hits every call.
 */
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';

export interface SimAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON; throws when it is not JSON. */
  json(): unknown;
}

export interface SimCallOptions {
  readonly headers?: Record<string, string>;
  readonly body?: string | object;
  /** `user:password` for Basic auth (default admin:admin); null sends no Authorization. */
  readonly auth?: string | null;
}

export const JSON_TYPE = 'application/yang-data+json';
export const XML_TYPE = 'application/yang-data+xml';
/** Accept and Content-Type for a RESTCONF JSON exchange. */
export const JSON_HEADERS: Record<string, string> = { accept: JSON_TYPE, 'content-type': JSON_TYPE };

export function simCall(baseUrl: string, method: string, path: string, options: SimCallOptions = {}): Promise<SimAnswer> {
  const url = new URL(path, baseUrl);
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const auth = options.auth === undefined ? 'admin:admin' : options.auth;
  const headers: Record<string, string> = { ...options.headers };
  if (auth !== null) headers['authorization'] = `Basic ${Buffer.from(auth).toString('base64')}`;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: (): unknown => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Throws unless `xml` is well-formed as far as this check goes: tags nest and
 * close, names are XML names, and text holds no raw `<` or stray `&`.
 */
export function assertWellFormedXml(xml: string): void {
  const stack: string[] = [];
  const tokens = xml.split(/(<[^>]*>)/).filter((token) => token !== '');
  for (const token of tokens) {
    if (!token.startsWith('<')) {
      if (/[<>]|&(?!(amp|lt|gt|quot|apos);)/.test(token)) throw new Error(`bad text ${JSON.stringify(token)}`);
      if (stack.length === 0 && token.trim() !== '') throw new Error(`text outside the root element: ${JSON.stringify(token)}`);
      continue;
    }
    const match = /^<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>$/.exec(token);
    if (match === null) throw new Error(`bad tag ${token}`);
    const [, closing, name = '', , selfClosing] = match;
    if (closing) {
      if (stack.pop() !== name) throw new Error(`unbalanced </${name}>`);
    } else if (!selfClosing) {
      stack.push(name);
    }
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.join('>, <')}>`);
}
