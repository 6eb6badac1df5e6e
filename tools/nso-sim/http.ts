/**
 * The HTTP plumbing both API areas share: content negotiation, JSON request
 * bodies, and answers rendered as JSON or XML with the area's media type.
 */
import type { ServerResponse } from 'node:http';
import { SimError } from './errors.ts';
import { isObject } from './json.ts';
import type { JsonObject } from './json.ts';
import { toXml } from './xml.ts';

export type Format = 'json' | 'xml';

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** null for answers without a body (204, HEAD-like answers, OPTIONS). */
  readonly body: string | null;
}

export interface MediaTypes {
  readonly json: readonly string[];
  readonly xml: readonly string[];
}

export const RESTCONF_TYPES: MediaTypes = {
  json: ['application/yang-data+json', 'application/json'],
  xml: ['application/yang-data+xml', 'application/xml', 'text/xml'],
};

/**
 * The format an Accept header asks for, or null when it names nothing this
 * area serves (406). No header, and wildcards, mean XML: NSO's default.
 */
export function negotiate(accept: string | undefined, types: MediaTypes): Format | null {
  if (accept === undefined || accept.trim() === '') return 'xml';
  const ranges = accept
    .split(',')
    .map((part, order) => {
      const [type = '', ...params] = part.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: type.trim().toLowerCase(), q: q === undefined ? 1 : Number(q.slice(2)), order };
    })
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || a.order - b.order);
  for (const range of ranges) {
    if (types.json.includes(range.type)) return 'json';
    if (types.xml.includes(range.type)) return 'xml';
    if (range.type === '*/*' || range.type === 'application/*') return 'xml';
  }
  return null;
}

/**
 * A JSON object body. XML bodies are refused with 415 rather than parsed: the
 * simulator has no schema to map XML elements back to lists and leaves.
 */
export function parseJsonBody(text: string, contentType: string | undefined, jsonTypes: readonly string[]): JsonObject {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type.endsWith('+xml') || type === 'application/xml' || type === 'text/xml') {
    throw new SimError(415, 'invalid-value', `XML request bodies are not supported by nso-sim; send the same data as ${jsonTypes[0] ?? 'JSON'}`);
  }
  if (type !== '' && !jsonTypes.includes(type)) throw new SimError(415, 'invalid-value', `unsupported Content-Type ${type}; send ${jsonTypes[0] ?? 'JSON'}`);
  let parsed: unknown;
  try {
    // A __proto__ member would reach the tree's plain objects as a prototype, not as data.
    parsed = JSON.parse(text, (key: string, value: unknown) => {
      if (key === '__proto__') throw new Error('__proto__');
      return value;
    });
  } catch {
    throw new SimError(400, 'malformed-message', 'the body is not valid JSON');
  }
  if (!isObject(parsed)) throw new SimError(400, 'malformed-message', 'the body must be a JSON object');
  return parsed;
}

/** `mediaBase` is the type without its suffix, e.g. `application/yang-data`; the format adds `+json` or `+xml`. */
export function docReply(status: number, doc: JsonObject, format: Format, mediaBase: string, headers: Record<string, string> = {}, xmlModule: string | null = null): Reply {
  const body = format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : toXml(doc, xmlModule);
  return { status, headers: { 'content-type': `${mediaBase}+${format}`, ...headers }, body };
}

export function emptyReply(status: number, headers: Record<string, string> = {}): Reply {
  return { status, headers, body: null };
}

export function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.headersSent) return;
  const headers: Record<string, string | number> = { ...reply.headers };
  if (reply.body !== null) headers['content-length'] = Buffer.byteLength(reply.body);
  res.writeHead(reply.status, headers);
  // Node drops the body of an answer to HEAD by itself.
  res.end(reply.body ?? undefined);
}
