/** The Koa middleware that puts the headers every answer carries (raw-answer.ts) on the answers Koa writes. */
import type { Middleware } from 'koa';
import { SECURITY_HEADERS } from './raw-answer.ts';

const SECURITY = Object.entries(SECURITY_HEADERS);

export function securityHeaders(): Middleware {
  return async function securityHeadersMiddleware(ctx, next) {
    // Straight onto the response: Koa's `set` builds two arrays per header to handle lists, which these are not.
    for (const [name, value] of SECURITY) ctx.res.setHeader(name, value);
    await next();
  };
}
