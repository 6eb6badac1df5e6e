/**
 * A hostile request as data, and sending it on node:http exactly as built:
 * fetch would normalise the path and refuse some of what these suites send
 * (malformed percent-encoding, `..` segments, bodies larger than the limit).
 */
import { request as httpRequest } from 'node:http';

export type Credential =
  | { readonly kind: 'admin' }
  /** An account whose roles allow reads only (see world.ts). */
  | { readonly kind: 'reader' }
  | { readonly kind: 'none' }
  | { readonly kind: 'bearer'; readonly value: string }
  | { readonly kind: 'basic'; readonly user: string; readonly password: string }
  | { readonly kind: 'queryToken'; readonly value: string }
  | { readonly kind: 'cookie'; readonly value: string };

export type BodySpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'text'; readonly text: string; readonly contentType: string }
  /** A JSON object of `bytes` bytes, sent with its length declared or streamed in chunks. */
  | { readonly kind: 'oversize'; readonly bytes: number; readonly chunked: boolean };

export interface HostileRequest {
  readonly method: string;
  /** The path as it goes on the wire: already percent-encoded (or deliberately not). */
  readonly pathname: string;
  /** The raw query string, without `?`. */
  readonly query: string;
  readonly body: BodySpec;
  readonly credential: Credential;
  readonly requestId?: string;
}

export interface Tokens {
  readonly admin: string;
  readonly reader: string;
}

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** The body read as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

/** The string with each lone surrogate (which UTF-8 cannot carry) replaced by U+FFFD, as Buffer.from does. */
export function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** encodeURIComponent for any string, lone surrogates included. */
export function encode(text: string): string {
  return encodeURIComponent(wellFormed(text));
}

/** The body's bytes and content type. */
export function bodyBytes(body: BodySpec): { bytes: Buffer | null; contentType: string | null } {
  switch (body.kind) {
    case 'none':
      return { bytes: null, contentType: null };
    case 'json':
      return { bytes: Buffer.from(JSON.stringify(body.value) ?? 'null'), contentType: 'application/json' };
    case 'text':
      return { bytes: Buffer.from(wellFormed(body.text)), contentType: body.contentType };
    case 'oversize': {
      const bytes = Buffer.alloc(body.bytes, 'a');
      bytes.write('{"a":"');
      bytes.write('"}', body.bytes - 2);
      return { bytes, contentType: 'application/json' };
    }
  }
}

function headersFor(req: HostileRequest, tokens: Tokens, contentType: string | null): Record<string, string> {
  const headers: Record<string, string> = {};
  const c = req.credential;
  if (c.kind === 'admin') headers['authorization'] = `Bearer ${tokens.admin}`;
  else if (c.kind === 'reader') headers['authorization'] = `Bearer ${tokens.reader}`;
  else if (c.kind === 'bearer') headers['authorization'] = `Bearer ${c.value}`;
  else if (c.kind === 'basic') headers['authorization'] = `Basic ${Buffer.from(`${c.user}:${c.password}`).toString('base64')}`;
  else if (c.kind === 'cookie') headers['cookie'] = `token=${c.value}`;
  if (contentType) headers['content-type'] = contentType;
  if (req.requestId !== undefined) headers['x-request-id'] = req.requestId;
  return headers;
}

export function pathOf(req: HostileRequest): string {
  const query = req.credential.kind === 'queryToken' ? [req.query, `token=${encode(req.credential.value)}`].filter(Boolean).join('&') : req.query;
  return query ? `${req.pathname}?${query}` : req.pathname;
}

export function describe(req: HostileRequest): string {
  const { bytes, contentType } = bodyBytes(req.body);
  const body = req.body.kind === 'oversize' ? `<${req.body.bytes} bytes${req.body.chunked ? ', chunked' : ''}>` : bytes ? bytes.toString('utf8').slice(0, 400) : '';
  return `${req.method} ${pathOf(req).slice(0, 400)} [${req.credential.kind}] ${contentType ?? ''} ${body}`;
}

export function send(baseUrl: string, req: HostileRequest, tokens: Tokens): Promise<Answer> {
  const url = new URL(baseUrl);
  const { bytes, contentType } = bodyBytes(req.body);
  const headers = headersFor(req, tokens, contentType);
  const chunked = req.body.kind === 'oversize' && req.body.chunked;
  if (bytes && !chunked) headers['content-length'] = String(bytes.length);
  // Said explicitly: node:http chunks POST, PUT and PATCH bodies by default, but not DELETE ones.
  if (chunked) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    let answered = false;
    // A large body gets its own connection: the server may answer and close before reading it all.
    const outgoing = httpRequest({ host: url.hostname, port: url.port, method: req.method, path: pathOf(req), headers, agent: bytes && bytes.length > 65536 ? false : undefined }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text.length > 0 ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    // EPIPE or a reset after the answer arrived only means the server stopped reading a body it refused.
    outgoing.on('error', (err) => {
      if (!answered) reject(new Error(`no answer to ${describe(req)}: ${err.message}`));
    });
    if (!bytes) outgoing.end();
    else if (!chunked) outgoing.end(bytes);
    else {
      for (let at = 0; at < bytes.length; at += 65536) outgoing.write(bytes.subarray(at, at + 65536));
      outgoing.end();
    }
  });
}
