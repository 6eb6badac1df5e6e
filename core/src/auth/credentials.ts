/**
 * Reads the credential of a request, in the order the platform's clients
 * send them: `Authorization: Basic`, `Authorization: Bearer`, the `token`
 * query parameter, then the `token` cookie. The first one present is the one
 * used; a wrong one is not silently replaced by another.
 *
 * A token may arrive bare or still in the JSON quotes of the login answer
 * (`POST /login` answers the token as a JSON string, and a client that keeps
 * the raw body sends `"abc"`, or `%22abc%22` in a URL). Both mean the same
 * token (docs/auth.md).
 */
import type { Context } from 'koa';

export type Credential =
  | { readonly kind: 'basic'; readonly username: string; readonly password: string; readonly raw: string }
  | { readonly kind: 'token'; readonly token: string; readonly source: 'bearer' | 'query' | 'cookie' }
  | { readonly kind: 'malformed'; readonly reason: string };

/** The query parameter that carries a token; authentication is its only reader. */
export const TOKEN_PARAMETER = 'token';

/** The parameter's name, decoded (`tok%65n` is `token` too); null when its encoding is malformed. */
function nameOf(part: string): string | null {
  const eq = part.indexOf('=');
  try {
    return decodeURIComponent((eq === -1 ? part : part.slice(0, eq)).replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

function queryToken(querystring: string): string | null {
  if (!mayNameToken(querystring)) return null;
  for (const part of querystring.split('&')) {
    const eq = part.indexOf('=');
    if (eq === -1 || nameOf(part) !== TOKEN_PARAMETER) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      return '';
    }
  }
  return null;
}

/** Cheap test that skips the split for the many queries that cannot name a token. */
function mayNameToken(querystring: string): boolean {
  return querystring.includes('oken') || querystring.includes('%');
}

/**
 * The query string without its credential parameters, for every reader but
 * authentication: a token is never a filter, a parameter or an unknown name.
 */
export function withoutCredentials(querystring: string): string {
  if (!mayNameToken(querystring)) return querystring;
  return querystring
    .split('&')
    .filter((part) => nameOf(part) !== TOKEN_PARAMETER)
    .join('&');
}

/** A token as the login answered it, JSON quotes and all, or bare. */
export function bareToken(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      const inner: unknown = JSON.parse(text);
      if (typeof inner === 'string') return inner;
    } catch {
      // Not a JSON string: the text is the token, and will not match one.
    }
  }
  return text;
}

/** A header or cookie value may carry the quotes percent-encoded (`%22abc%22`), as a URL would. */
function decodedToken(text: string): string {
  if (!text.includes('%')) return bareToken(text);
  try {
    return bareToken(decodeURIComponent(text));
  } catch {
    return text;
  }
}

export function readCredential(ctx: Context): Credential | null {
  const header = ctx.get('authorization');
  if (header) {
    const [scheme, value = ''] = header.split(/\s+/, 2);
    if (/^basic$/i.test(scheme ?? '')) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 1) return { kind: 'malformed', reason: 'Basic credentials must be username:password' };
      return { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1), raw: value };
    }
    if (/^bearer$/i.test(scheme ?? '')) return { kind: 'token', token: decodedToken(value), source: 'bearer' };
    return { kind: 'malformed', reason: 'Authorization must use the Basic or Bearer scheme' };
  }
  const fromQuery = queryToken(ctx.querystring);
  if (fromQuery !== null) return { kind: 'token', token: bareToken(fromQuery), source: 'query' };
  const cookie = ctx.cookies.get('token');
  if (cookie) return { kind: 'token', token: decodedToken(cookie), source: 'cookie' };
  return null;
}
