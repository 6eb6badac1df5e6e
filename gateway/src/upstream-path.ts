/**
 * The path a call is sent upstream under: the base path of CORE_URL (a
 * reverse proxy's prefix in front of the platform, say `/iap`) and the path
 * asked. A path that could leave the base path once a proxy normalises it is
 * refused, never sent: a dot segment (`.`, `..`), also when written with
 * `%2e`, `%2f`, `%5c` or a backslash, or encoded twice, since proxies decode
 * and resolve such segments before they route (RFC 3986 section 5.2.4; nginx
 * decodes before it matches a location). The same rule holds without a base
 * path: `/operations-manager/jobs/..` made from a legacy parameter would reach
 * another route than the mapping meant.
 */
import { AppError } from '../../kernel/index.ts';

/** Nothing here can hide a dot segment: no `%`, no backslash, no `.` or `..` between slashes. */
const SUSPECT = /[%\\]|(?:^|\/)\.\.?(?:\/|$)/;
const ENCODED = /%[0-9a-fA-F]{2}/g;
/** A proxy that decodes more often than this is not one we can reason about: such a path is refused. */
const DECODINGS = 3;

/** Percent-decodes byte by byte, never throwing on a malformed escape (it stays as it is). */
function decodeOnce(path: string): string {
  return path.replace(ENCODED, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
}

function hasDotSegment(path: string): boolean {
  for (const segment of path.split(/[/\\]/)) if (segment === '.' || segment === '..') return true;
  return false;
}

/** True when `pathname` holds a dot segment, as it is or once decoded up to three times. */
export function hasHiddenDotSegment(pathname: string): boolean {
  if (!SUSPECT.test(pathname)) return false;
  let path = pathname;
  for (let i = 0; i <= DECODINGS; i += 1) {
    if (hasDotSegment(path)) return true;
    const next = decodeOnce(path);
    if (next === path) return false;
    path = next;
  }
  return true;
}

/**
 * The base path of an upstream URL: `''` for none, else its path without a
 * trailing slash. Throws (a message for the config error) for one that is not
 * a plain path.
 */
export function basePathOf(url: URL): string {
  const path = url.pathname.replace(/\/+$/, '');
  if (hasHiddenDotSegment(path)) throw new Error(`its path ${url.pathname} has a dot segment`);
  return path;
}

/**
 * `pathAndQuery` (starting with `/`) under `basePath`, or a 400 naming why it
 * cannot be sent. Only the path is checked: a query is data to the upstream.
 */
export function upstreamPath(basePath: string, pathAndQuery: string): string {
  if (pathAndQuery.charCodeAt(0) !== 47 /* / */) throw new AppError('BAD_REQUEST', 'The request target must be a path starting with /');
  const q = pathAndQuery.indexOf('?');
  const pathname = q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
  if (hasHiddenDotSegment(pathname)) throw new AppError('BAD_REQUEST', 'The path has a "." or ".." segment (perhaps percent-encoded), which the gateway does not pass on: name the resource itself');
  return basePath + pathAndQuery;
}
