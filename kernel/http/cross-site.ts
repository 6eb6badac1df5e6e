/**
 * Cross-site request refusal. A browser sends the `token` cookie with every
 * request to our host, whoever's page made it; the cookie's SameSite=Lax
 * stops other sites, but not another port of the same host or a sibling
 * subdomain ("same-site"). So a write (POST, PUT, PATCH, DELETE) that the
 * cookie authenticates must show it comes from our own origin, or carry a
 * JSON body: a page of another origin can send JSON only after a CORS
 * preflight, which we never grant. Form bodies (what a page can send without
 * asking) are taken with the cookie only by routes that declare them, and
 * only from our own origin. Bearer, Basic and `?token=` are not ambient
 * (a page cannot make a browser add them), so they are not checked
 * (docs/auth.md, "Cross-site requests").
 */
import type { Middleware } from 'koa';
import { ForbiddenError } from '../errors.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** What an HTML form or a no-CORS fetch may send without a preflight. */
const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

export interface CrossSiteRequest {
  readonly method: string;
  /** The request's own origin as the client reached it: `https://host:port`. */
  readonly origin: string;
  readonly headers: { readonly origin?: string | undefined; readonly 'sec-fetch-site'?: string | undefined; readonly 'content-type'?: string | undefined };
  /** The route declares form bodies (`RouteDef.acceptsForms`). */
  readonly formsDeclared: boolean;
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function isJson(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** Where the request says it comes from: `same-origin`, or what it names instead. */
function sameOrigin(request: CrossSiteRequest): { readonly same: boolean; readonly from: string } {
  const site = request.headers['sec-fetch-site']?.trim().toLowerCase();
  // `none`: the user's own action (an address typed, a bookmark), not a page's.
  if (site) return { same: site === 'same-origin' || site === 'none', from: `Sec-Fetch-Site: ${site}` };
  const origin = request.headers.origin?.trim();
  if (origin) return { same: origin.toLowerCase() === request.origin.toLowerCase(), from: `Origin ${origin}` };
  return { same: false, from: 'no Origin or Sec-Fetch-Site header' };
}

/**
 * Why a cookie-authenticated request is refused, or null when it may go on.
 * Reads only headers: nothing of the body is read before the answer.
 */
export function crossSiteRefusal(request: CrossSiteRequest): string | null {
  if (!WRITES.has(request.method.toUpperCase())) return null;
  const type = mediaType(request.headers['content-type']);
  if (isJson(type)) return null;
  const { same, from } = sameOrigin(request);
  if (!same) {
    return `Cross-site request refused: a ${request.method.toUpperCase()} authenticated by the token cookie must come from ${request.origin} (this one has ${from}) or send a JSON body; scripts should send Authorization: Bearer instead of the cookie`;
  }
  if (FORM_TYPES.has(type) && !request.formsDeclared) {
    return `Form bodies (${type}) are not taken with the token cookie by this operation; send JSON`;
  }
  return null;
}

export interface CrossSiteOptions {
  /** Whether the request's credential is the cookie (none of Authorization, `?token=`). */
  readonly byCookie: (ctx: Parameters<Middleware>[0]) => boolean;
  /** Whether the route a method and path lead to declares form bodies. */
  readonly formsDeclared: (method: string, path: string) => boolean;
}

/** Koa: answers 403, naming why, before the body is read or any route runs. */
export function crossSiteGuard(options: CrossSiteOptions): Middleware {
  return function crossSiteMiddleware(ctx, next) {
    if (!WRITES.has(ctx.method) || !options.byCookie(ctx)) return next();
    const refusal = crossSiteRefusal({ method: ctx.method, origin: `${ctx.protocol}://${ctx.host}`, headers: ctx.req.headers as CrossSiteRequest['headers'], formsDeclared: options.formsDeclared(ctx.method, ctx.path) });
    if (refusal) throw new ForbiddenError(refusal);
    return next();
  };
}
