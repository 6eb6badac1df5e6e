/** The Koa middleware that puts the headers every answer carries (raw-answer.ts) on the answers Koa writes. */
import type { Middleware } from 'koa';
import { SECURITY_HEADERS } from './raw-answer.ts';

const SECURITY = Object.entries(SECURITY_HEADERS);

export function securityHeaders(): Middleware {
  return async function securityHeadersMiddleware(ctx, next) {
    for (const [name, value] of SECURITY) ctx.set(name, value);
    await next();
  };
}
