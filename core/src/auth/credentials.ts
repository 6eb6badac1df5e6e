/**
 * Reads the credential of a request, in the order the platform's clients
 * send them: `Authorization: Basic`, `Authorization: Bearer`, the `token`
 * query parameter, then the `token` cookie. The first one present is the one
 * used; a wrong one is not silently replaced by another.
 */
import type { Context } from 'koa';

export type Credential =
  | { readonly kind: 'basic'; readonly username: string; readonly password: string; readonly raw: string }
  | { readonly kind: 'token'; readonly token: string; readonly source: 'bearer' | 'query' | 'cookie' }
  | { readonly kind: 'malformed'; readonly reason: string };

function queryToken(querystring: string): string | null {
  for (const part of querystring.split('&')) {
    if (part.startsWith('token=')) {
      try {
        return decodeURIComponent(part.slice(6));
      } catch {
        return '';
      }
    }
  }
  return null;
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
    if (/^bearer$/i.test(scheme ?? '')) return { kind: 'token', token: value, source: 'bearer' };
    return { kind: 'malformed', reason: 'Authorization must use the Basic or Bearer scheme' };
  }
  const fromQuery = queryToken(ctx.querystring);
  if (fromQuery !== null) return { kind: 'token', token: fromQuery, source: 'query' };
  const cookie = ctx.cookies.get('token');
  if (cookie) return { kind: 'token', token: cookie, source: 'cookie' };
  return null;
}
