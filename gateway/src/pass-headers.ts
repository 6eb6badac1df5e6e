/**
 * The headers the pass-through sends each way, as the flat `[name, value,
 * …]` lists node:http writes as they are. Built by copying only what may
 * go, rather than by copying everything and deleting the hop-by-hop names:
 * a deleted key turns a V8 object into a slow dictionary, and with the
 * object's own header-by-header `setHeader` that was about a tenth of the
 * pass-through's CPU (BENCHMARKS.md, "The gateway's pass-through beside its
 * floor").
 *
 * What is left out (RFC 9110 section 7.6.1): the hop-by-hop headers, and
 * every header the `Connection` header names.
 */
import type { IncomingHttpHeaders } from 'node:http';

const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'upgrade', 'transfer-encoding']);

/** The names a `Connection` header lists beyond the hop-by-hop ones; none for the usual `keep-alive` or `close`. */
function listedIn(connection: string | string[] | undefined): ReadonlySet<string> | null {
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return null;
  let listed: Set<string> | null = null;
  for (const token of String(connection).split(',')) {
    const name = token.trim().toLowerCase();
    if (name !== '' && !HOP_BY_HOP.has(name)) (listed ??= new Set()).add(name);
  }
  return listed;
}

/** A set of header names that always holds the hop-by-hop ones; only `leavingOut` makes one. */
export type LeftOut = ReadonlySet<string> & { readonly __leftOut: true };

/**
 * The names `endToEnd` leaves out: the hop-by-hop ones and `also`, the names
 * the caller writes itself. Made once per use at start, so each header costs
 * one lookup, not two.
 */
export function leavingOut(also: Iterable<string>): LeftOut {
  return new Set([...HOP_BY_HOP, ...also]) as ReadonlySet<string> as LeftOut;
}

/**
 * `headers` as name, value pairs (each value of a list, `set-cookie`, as a
 * pair of its own), without the hop-by-hop ones and without the other names
 * `leftOut` holds. Node's parser has already joined or dropped repeated
 * fields (`req.headers`), so the upstream sees what the gateway saw.
 */
export function endToEnd(headers: IncomingHttpHeaders, leftOut: LeftOut): string[] {
  const listed = listedIn(headers['connection']);
  const out: string[] = [];
  const names = Object.keys(headers);
  for (let i = 0; i < names.length; i += 1) {
    const name = names[i]!;
    if (leftOut.has(name) || (listed !== null && listed.has(name))) continue;
    const value = headers[name];
    if (typeof value === 'string') out.push(name, value);
    else if (value !== undefined) for (const one of value) out.push(name, one);
  }
  return out;
}

/** What the gateway writes itself on a call upstream: its own values replace the caller's. */
export const SET_UPSTREAM: LeftOut = leavingOut(['host', 'x-request-id', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host']);
