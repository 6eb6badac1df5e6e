/**
 * The successor of one legacy call as a concrete URL, for its `Link` header
 * (RFC 8288, `rel="successor-version"`): the replacement route with this
 * call's ids filled in, every value and every reserved character of the
 * query percent-encoded (`equals[_id]` is written `equals%5B_id%5D`).
 *
 * Where the ids come from, in order:
 * 1. the entry's own `successor` template, when the table gives one (ids
 *    carried in the body, or a list route narrowed to this call's id);
 * 2. the entry's call step to the replacement route (same method, same path
 *    shape): its placeholders say which legacy value each `:param` takes;
 * 3. a legacy path parameter of the same name.
 * When a parameter can be filled by none of them, the entry has no concrete
 * successor and its answers carry no `Link` (docs/gateway.md).
 */
import { fillPath, MissingPathValue } from './template.ts';
import type { Scope } from './template.ts';
import type { Entry, Step } from './types.ts';

type CallStep = Extract<Step, { call: unknown }>['call'];

function splitUrl(url: string): [path: string, query: string] {
  const q = url.indexOf('?');
  return q === -1 ? [url, ''] : [url.slice(0, q), url.slice(q + 1)];
}

/** The call step that makes the replacement's request: same method, same literal segments. */
function replacementCall(entry: Entry, path: string): CallStep | null {
  const want = path.split('/');
  for (const step of entry.steps) {
    if (!('call' in step) || step.call.method !== entry.replacement!.method) continue;
    const got = splitUrl(step.call.path)[0].split('/');
    if (got.length === want.length && want.every((seg, i) => (seg.startsWith(':') ? got[i]!.includes('{') : seg === got[i]))) return step.call;
  }
  return null;
}

/**
 * The successor template of an entry, read once at start: a URL whose
 * placeholders (`{params.job_id}`, `{body.task_id}`) name legacy values; null
 * when the entry has no replacement or no concrete one.
 */
export function successorTemplate(entry: Entry): string | null {
  if (entry.successor !== undefined) return entry.successor;
  if (!entry.replacement) return null;
  const [path, query] = splitUrl(entry.replacement.path);
  const legacy = new Set([...entry.legacy.path.matchAll(/:(\w+)/g)].map((m) => m[1]!));
  const call = replacementCall(entry, path);
  const callSegments = call ? splitUrl(call.path)[0].split('/') : [];
  const segments: string[] = [];
  for (const [i, seg] of path.split('/').entries()) {
    if (!seg.startsWith(':')) segments.push(seg);
    else if (call) segments.push(callSegments[i]!);
    else if (legacy.has(seg.slice(1))) segments.push(`{params.${seg.slice(1)}}`);
    else return null;
  }
  if (query === '') return segments.join('/');
  const given = call && typeof call.query === 'object' && call.query !== null ? (call.query as Record<string, unknown>) : {};
  const pairs: string[] = [];
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=');
    const key = eq === -1 ? pair : pair.slice(0, eq);
    const value = eq === -1 ? '' : pair.slice(eq + 1);
    // An empty value in the table (`equals[job._id]=`) is the id this call's request fills in.
    const filled = value !== '' ? value : given[key];
    if (typeof filled !== 'string' || filled === '') return null;
    pairs.push(`${key}=${filled}`);
  }
  return `${segments.join('/')}?${pairs.join('&')}`;
}

/** Characters a path may hold as they are (RFC 3986 pchar and `/`); anything else is percent-encoded. */
function encodePathLiteral(text: string): string {
  return text.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g, (ch) => encodeURIComponent(ch));
}

/** Fills placeholders with encoded values (fillPath) and encodes the literals between them. */
function fillWith(template: string, scope: Scope, encode: (literal: string) => string): string {
  return template
    .split(/(\{[^{}]+\})/)
    .map((piece) => (piece.startsWith('{') && piece.endsWith('}') ? fillPath(piece, scope) : encode(piece)))
    .join('');
}

/** The concrete URL for one call, or null when a value it needs is missing (the body was never read, or lacked it). */
export function successorUrl(template: string, scope: Scope): string | null {
  const [path, query] = splitUrl(template);
  try {
    const filledPath = fillWith(path, scope, encodePathLiteral);
    if (query === '') return filledPath;
    const pairs = query.split('&').map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq === -1 ? pair : pair.slice(0, eq);
      return `${encodeURIComponent(key)}=${fillWith(eq === -1 ? '' : pair.slice(eq + 1), scope, encodeURIComponent)}`;
    });
    return `${filledPath}?${pairs.join('&')}`;
  } catch (err) {
    // A missing value, or text a URL cannot hold (a lone surrogate): no concrete URL for this call.
    if (err instanceof MissingPathValue || err instanceof URIError) return null;
    throw err;
  }
}

/**
 * The longest successor URL put in a `Link`. Ids come from the caller, and a
 * hostile one near Node's 16 KiB request-header limit, percent-encoded, would
 * make an answer whose headers the caller's own HTTP client refuses to read
 * ("Header overflow"). No real id comes near this; 2,000 is the URL length
 * that browsers, proxies and HTTP libraries commonly all accept.
 */
export const MAX_SUCCESSOR_URL = 2000;

/** The header value, or null when this call has no concrete successor (or one too long to send). */
export function successorLink(template: string | null, scope: Scope): string | null {
  if (template === null) return null;
  const url = successorUrl(template, scope);
  return url === null || url.length > MAX_SUCCESSOR_URL ? null : `<${url}>; rel="successor-version"`;
}
